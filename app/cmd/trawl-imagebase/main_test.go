package main

import (
	"archive/tar"
	"bytes"
	"debug/elf"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// files reads the flattened filesystem of img.
func files(t *testing.T, img v1.Image) map[string]*tar.Header {
	t.Helper()
	rc := mutate.Extract(img)
	defer rc.Close()
	out := map[string]*tar.Header{}
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out[strings.TrimSuffix(strings.TrimPrefix(h.Name, "/"), "/")] = h
	}
}

func readFile(t *testing.T, img v1.Image, name string) []byte {
	t.Helper()
	rc := mutate.Extract(img)
	defer rc.Close()
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if err != nil {
			t.Fatalf("%s not in the image: %v", name, err)
		}
		if strings.TrimPrefix(h.Name, "/") == name {
			b, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
	}
}

// nonRoot checks the config runs as a user other than root, and returns it.
func nonRoot(t *testing.T, img v1.Image) int {
	t.Helper()
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	uid, _, _ := strings.Cut(cf.Config.User, ":")
	n, err := strconv.Atoi(uid)
	if err != nil || n == 0 {
		t.Fatalf("the image runs as %q, want a numeric non-root user", cf.Config.User)
	}
	return n
}

func TestBase(t *testing.T) {
	certs := []byte("-----BEGIN CERTIFICATE-----\nfixture\n-----END CERTIFICATE-----\n")
	dir := filepath.Join(t.TempDir(), "img")
	ref, err := run(dir, writeTemp(t, certs), "local.invalid/trawl-base")
	if err != nil {
		t.Fatal(err)
	}
	again, err := run(dir, writeTemp(t, certs), "local.invalid/trawl-base")
	if err != nil || again != ref {
		t.Fatalf("the same certificates gave %s then %s (%v)", ref, again, err)
	}
	p, err := layout.FromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	h, err := v1.NewHash(strings.SplitN(ref, "@", 2)[1])
	if err != nil {
		t.Fatal(err)
	}
	img, err := p.Image(h)
	if err != nil {
		t.Fatalf("%s is not in the layout: %v", ref, err)
	}
	if nonRoot(t, img) != User {
		t.Error("not the trawl user")
	}
	fs := files(t, img)
	if d := fs["var/lib/trawl"]; d == nil || d.Uid != User {
		t.Errorf("data directory: %+v", d)
	}
	if !bytes.Equal(readFile(t, img, "etc/ssl/certs/ca-certificates.crt"), certs) {
		t.Error("the CA bundle is not the machine's")
	}
	if !strings.Contains(string(readFile(t, img, "etc/passwd")), "trawl:x:65532:65532:") {
		t.Error("no trawl user in /etc/passwd")
	}
	for name := range fs {
		if strings.HasPrefix(name, "bin/") || strings.HasPrefix(name, "usr/") {
			t.Errorf("the base carries %s", name)
		}
	}
	if _, err := run(dir, filepath.Join(t.TempDir(), "missing.crt"), "x"); err == nil {
		t.Error("a missing CA bundle was accepted")
	}
}

func writeTemp(t *testing.T, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "ca.crt")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestImage checks the tarball `make image` wrote (TRAWL_TEST_IMAGE, e.g.
// bin/trawl-image.tar; building it takes minutes, so the test does not):
// the binary is in the layers, static, and runs; the image runs as a
// non-root user and carries no shell.
func TestImage(t *testing.T) {
	path := os.Getenv("TRAWL_TEST_IMAGE")
	if path == "" {
		t.Skip("TRAWL_TEST_IMAGE is not set (make image writes bin/trawl-image.tar)")
	}
	img, err := tarball.ImageFromPath(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	uid := nonRoot(t, img)
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if len(cf.Config.Entrypoint) != 1 {
		t.Fatalf("entrypoint %q", cf.Config.Entrypoint)
	}
	bin := strings.TrimPrefix(cf.Config.Entrypoint[0], "/")
	fs := files(t, img)
	if fs[bin] == nil {
		t.Fatalf("the entrypoint %s is not in the layers", bin)
	}
	for _, sh := range []string{"bin/sh", "bin/bash", "usr/bin/sh", "bin/busybox"} {
		if fs[sh] != nil {
			t.Errorf("the image carries a shell: %s", sh)
		}
	}
	if d := fs["var/lib/trawl"]; d == nil || d.Uid != uid {
		t.Errorf("the data directory is not the user's: %+v", d)
	}
	exe := filepath.Join(t.TempDir(), "trawl")
	if err := os.WriteFile(exe, readFile(t, img, bin), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := elf.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Error("the binary is dynamically linked")
		}
	}
	f.Close()
	out, err := exec.Command(exe, "version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "trawl ") || strings.TrimSpace(string(out)) == "trawl" {
		t.Fatalf("trawl version: %q, %v", out, err)
	}
	st, _ := os.Stat(exe)
	t.Logf("image %s: %s, user %s, %s, binary %d bytes", path, strings.TrimSpace(string(out)), cf.Config.User, cf.Config.Entrypoint[0], st.Size())
}
