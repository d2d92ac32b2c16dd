package password

import (
	"strings"
	"testing"
)

func TestHashVerify(t *testing.T) {
	h := New(Params{MemoryKiB: 1024, Time: 1, Threads: 1})
	hash, err := h.Hash("correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(hash, "$argon2id$v=19$m=1024,t=1,p=1$") || strings.Contains(hash, "correct") {
		t.Fatalf("hash %q", hash)
	}
	again, _ := h.Hash("correct horse battery")
	if again == hash {
		t.Fatal("two hashes of one password are equal: no salt")
	}
	if ok, err := h.Verify(hash, "correct horse battery"); !ok || err != nil {
		t.Fatalf("verify right password = %v, %v", ok, err)
	}
	if ok, err := h.Verify(hash, "correct horse batterY"); ok || err != nil {
		t.Fatalf("verify wrong password = %v, %v", ok, err)
	}
	// A hash made with other parameters verifies with its own.
	if ok, _ := New(Params{}).Verify(hash, "correct horse battery"); !ok {
		t.Fatal("parameters were not read from the hash")
	}
	for _, bad := range []string{"", "$2a$10$abc", "$argon2id$v=19$m=1024,t=1,p=1$!!$!!", "$argon2id$v=18$m=1024,t=1,p=1$c2FsdA$a2V5"} {
		if ok, err := h.Verify(bad, "x"); ok || err == nil {
			t.Fatalf("Verify(%q) = %v, %v", bad, ok, err)
		}
	}
}
