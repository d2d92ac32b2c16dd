package bulk

import (
	"errors"
	"net"
	"strings"
)

func parseIP(host string) (net.IP, error) {
	ip := net.ParseIP(strings.Trim(host, "[]"))
	if ip == nil {
		return nil, errors.New("not an IP")
	}
	return ip, nil
}
