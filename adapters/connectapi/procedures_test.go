package connectapi_test

import (
	"strings"
	"testing"

	// The v1alpha reflection service's descriptor, which the server's
	// reflection package keeps to itself.
	_ "google.golang.org/grpc/reflection/grpc_reflection_v1alpha"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/trawlhq/trawl/adapters/connectapi"
)

// procedure is one RPC path the server answers.
type procedure struct {
	Path string // "/pkg.Service/Method"
	// ClientStream and ServerStream tell how its messages travel.
	ClientStream, ServerStream bool
}

// procedures lists every RPC path of the mounted handlers, read from the
// routes the server registers (service prefixes are expanded through the
// protobuf registry), so a new service or method is covered without
// touching the tests.
func procedures(t testing.TB, s *connectapi.Server) []procedure {
	t.Helper()
	var out []procedure
	add := func(m protoreflect.MethodDescriptor) {
		out = append(out, procedure{
			Path:         "/" + string(m.Parent().FullName()) + "/" + string(m.Name()),
			ClientStream: m.IsStreamingClient(), ServerStream: m.IsStreamingServer(),
		})
	}
	for _, r := range s.Routes() {
		name := strings.ReplaceAll(strings.Trim(r.Pattern, "/"), "/", ".")
		d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName(name))
		if err != nil {
			t.Fatalf("route %s: no descriptor for %s: %v", r.Pattern, name, err)
		}
		switch d := d.(type) {
		case protoreflect.ServiceDescriptor:
			if d.Methods().Len() == 0 {
				t.Fatalf("route %s: service without methods", r.Pattern)
			}
			for i := range d.Methods().Len() {
				add(d.Methods().Get(i))
			}
		case protoreflect.MethodDescriptor:
			add(d)
		default:
			t.Fatalf("route %s names a %T", r.Pattern, d)
		}
	}
	return out
}
