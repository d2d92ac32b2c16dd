package fetch

import (
	"context"
	"net"
)

// DialContext opens a connection the way Fetch does: the host is resolved
// here, every address is checked by the address guard when the socket
// connects, and resolve overrides apply. Trawl's egress proxy dials the
// browser's connections through it, so pages rendered in a browser reach
// exactly the addresses a fetch may reach.
func (c *Client) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	return c.dial(ctx, network, addr)
}
