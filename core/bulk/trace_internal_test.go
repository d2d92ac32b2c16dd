package bulk

import "testing"

func TestTraceParentKeepsOnlyW3CValues(t *testing.T) {
	valid := "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	for in, want := range map[string]string{
		valid: valid,
		"":    "",
		"00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01": "", // uppercase is not W3C
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0":  "",
		"00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01": "",
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0g": "",
		valid + "\n": "",
	} {
		if got := traceParent(in); got != want {
			t.Errorf("traceParent(%q) = %q, want %q", in, got, want)
		}
	}
}
