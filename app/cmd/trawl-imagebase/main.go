// Command trawl-imagebase writes the base of Trawl's container image into an
// OCI layout, without any registry: one layer holding /etc/passwd and
// /etc/group with the non-root user trawl (65532), this machine's CA
// certificates, and the data directory /var/lib/trawl owned by that user.
// The config runs as that user, listens on all interfaces and keeps its data
// in /var/lib/trawl. It prints the image's reference by digest, which
// `make image` hands to ko as the base; ko finds it in the layout (KOCACHE).
//
// The layer's files carry a fixed time, so the same certificates give the
// same digest.
package main

import (
	"archive/tar"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// User is the image's user and group id (the usual "nonroot" id).
const User = 65532

func main() {
	dir := flag.String("layout", "bin/kocache/img", "OCI layout to add the base image to (created when missing)")
	certs := flag.String("certs", "/etc/ssl/certs/ca-certificates.crt", "CA certificate bundle copied into the image")
	name := flag.String("name", "local.invalid/trawl-base", "repository the printed reference names (never pulled)")
	flag.Parse()
	ref, err := run(*dir, *certs, *name)
	if err != nil {
		fmt.Fprintln(os.Stderr, "trawl-imagebase:", err)
		os.Exit(1)
	}
	fmt.Println(ref)
}

func run(dir, certsPath, name string) (string, error) {
	certs, err := os.ReadFile(certsPath)
	if err != nil {
		return "", fmt.Errorf("CA certificates: %w", err)
	}
	img, err := Base(certs)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", err
	}
	p, err := layout.FromPath(dir)
	if err != nil {
		if p, err = layout.Write(dir, empty.Index); err != nil {
			return "", err
		}
	}
	d, err := img.Digest()
	if err != nil {
		return "", err
	}
	if err := p.ReplaceImage(img, func(desc v1.Descriptor) bool { return desc.Digest == d }); err != nil {
		return "", err
	}
	return name + "@" + d.String(), nil
}

// Base is the base image over the given CA bundle.
func Base(certs []byte) (v1.Image, error) {
	epoch := time.Unix(0, 0).UTC()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	dir := func(path string, uid int, mode int64) error {
		return tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: path, Mode: mode, Uid: uid, Gid: uid, ModTime: epoch, Format: tar.FormatPAX})
	}
	file := func(path string, mode int64, data []byte) error {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: path, Mode: mode, Size: int64(len(data)), ModTime: epoch, Format: tar.FormatPAX}); err != nil {
			return err
		}
		_, err := tw.Write(data)
		return err
	}
	passwd := fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\ntrawl:x:%d:%d:trawl:/var/lib/trawl:/sbin/nologin\n", User, User)
	group := fmt.Sprintf("root:x:0:\ntrawl:x:%d:\n", User)
	for _, step := range []func() error{
		func() error { return dir("etc/", 0, 0o755) },
		func() error { return file("etc/passwd", 0o644, []byte(passwd)) },
		func() error { return file("etc/group", 0o644, []byte(group)) },
		func() error { return dir("etc/ssl/", 0, 0o755) },
		func() error { return dir("etc/ssl/certs/", 0, 0o755) },
		func() error { return file("etc/ssl/certs/ca-certificates.crt", 0o644, certs) },
		func() error { return dir("tmp/", 0, 0o1777) },
		func() error { return dir("var/", 0, 0o755) },
		func() error { return dir("var/lib/", 0, 0o755) },
		func() error { return dir("var/lib/trawl/", User, 0o700) },
		tw.Close,
	} {
		if err := step(); err != nil {
			return nil, err
		}
	}
	raw := buf.Bytes()
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(raw)), nil },
		tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, err
	}
	img, err := mutate.AppendLayers(mutate.MediaType(empty.Image, types.OCIManifestSchema1), layer)
	if err != nil {
		return nil, err
	}
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture, cf.Created = "linux", "amd64", v1.Time{Time: epoch}
	cf.Config.User = fmt.Sprintf("%d:%d", User, User)
	cf.Config.WorkingDir = "/var/lib/trawl"
	cf.Config.Env = []string{
		"SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt",
		"TRAWL_ADDR=0.0.0.0:8080",
		"TRAWL_DATA_DIR=/var/lib/trawl",
	}
	cf.Config.ExposedPorts = map[string]struct{}{"8080/tcp": {}}
	return mutate.ConfigFile(img, cf)
}
