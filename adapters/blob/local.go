// Package blob stores delivered files. Local keeps them under the data
// directory and serves them itself at /files/<key> behind HMAC-signed,
// expiring links; S3 puts them in any S3-compatible bucket and hands out
// presigned links.
package blob

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/trawlhq/trawl/ports"
)

// Local implements ports.BlobStore on the file system.
type Local struct {
	dir    string
	secret []byte
	base   string
	now    func() time.Time
}

var _ ports.BlobStore = (*Local)(nil)

// LinkSecret reads the link-signing secret from dataDir/link.key, creating it
// once. Several nodes sharing links must share this secret (TRAWL_LINK_SECRET).
func LinkSecret(dataDir string) ([]byte, error) {
	p := filepath.Join(dataDir, "link.key")
	if b, err := os.ReadFile(p); err == nil && len(b) >= 32 {
		return b, nil
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, err
	}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, err
	}
	key := []byte(hex.EncodeToString(b[:]))
	if err := os.WriteFile(p, key, 0o600); err != nil {
		return nil, err
	}
	return key, nil
}

// NewLocal stores files under dir; links start with publicBase.
func NewLocal(dir string, secret []byte, publicBase string, now func() time.Time) (*Local, error) {
	if dir == "" || len(secret) < 16 || publicBase == "" {
		return nil, errors.New("blob.NewLocal: dir, a secret of 16+ bytes and a public base URL are required")
	}
	if now == nil {
		now = time.Now
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	return &Local{dir: dir, secret: secret, base: strings.TrimRight(publicBase, "/"), now: now}, nil
}

// cleanKey refuses keys that could leave the directory.
func cleanKey(key string) (string, error) {
	k := path.Clean("/" + key)[1:]
	if k == "" || k != key || strings.Contains(key, "..") || strings.HasPrefix(key, "/") || strings.ContainsAny(key, "\\\x00") {
		return "", fmt.Errorf("invalid blob key %q", key)
	}
	return k, nil
}

// disposition makes a download an attachment named after the key's last
// segment; quotes and non-ASCII letters are encoded (RFC 2231).
func disposition(key string) string {
	return mime.FormatMediaType("attachment", map[string]string{"filename": path.Base(key)})
}

// typeSuffix names the file beside a blob that keeps its content type. No
// key can name it: keys never contain "..".
const typeSuffix = "..type"

// defaultContentType is what a blob put without a content type is served
// as, as S3 does.
const defaultContentType = "application/octet-stream"

// Put implements ports.BlobStore: the content type is kept beside the file
// and served with it.
func (l *Local) Put(_ context.Context, key string, data []byte, contentType string) error {
	k, err := cleanKey(key)
	if err != nil {
		return err
	}
	if contentType == "" {
		contentType = defaultContentType
	}
	p := filepath.Join(l.dir, filepath.FromSlash(k))
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	if err := writeFile(p+typeSuffix, []byte(contentType)); err != nil {
		return err
	}
	return writeFile(p, data)
}

// writeFile replaces p whole: a reader sees the old bytes or the new ones.
// The temporary file's name holds "..", so it is never another key's file.
func writeFile(p string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(p), ".."+filepath.Base(p)+".*")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), p)
	}
	if err != nil {
		_ = os.Remove(f.Name())
	}
	return err
}

func (l *Local) sign(key string, expires int64) string {
	mac := hmac.New(sha256.New, l.secret)
	mac.Write([]byte(key))
	mac.Write([]byte{0})
	mac.Write([]byte(strconv.FormatInt(expires, 10)))
	return hex.EncodeToString(mac.Sum(nil))
}

// URL implements ports.BlobStore: an absolute link valid for ttl.
func (l *Local) URL(_ context.Context, key string, ttl time.Duration) (string, error) {
	k, err := cleanKey(key)
	if err != nil {
		return "", err
	}
	exp := l.now().Add(ttl).Unix()
	return fmt.Sprintf("%s/files/%s?expires=%d&signature=%s", l.base, (&url.URL{Path: k}).EscapedPath(), exp, l.sign(k, exp)), nil
}

// ServeHTTP serves GET /files/<key> when the link's signature is right and
// it has not expired; anything else is a 404 that reveals nothing.
func (l *Local) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	notFound := func() {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"message":"This link is invalid or has expired.","error":"This link is invalid or has expired."}` + "\n"))
	}
	key, err := cleanKey(strings.TrimPrefix(r.URL.Path, "/files/"))
	if err != nil {
		notFound()
		return
	}
	exp, err := strconv.ParseInt(r.URL.Query().Get("expires"), 10, 64)
	sig := r.URL.Query().Get("signature")
	if err != nil || l.now().Unix() > exp || !hmac.Equal([]byte(sig), []byte(l.sign(key, exp))) {
		notFound()
		return
	}
	f, err := os.Open(filepath.Join(l.dir, filepath.FromSlash(key)))
	if err != nil {
		notFound()
		return
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.IsDir() {
		notFound()
		return
	}
	w.Header().Set("Content-Disposition", disposition(key))
	if ctype, err := os.ReadFile(filepath.Join(l.dir, filepath.FromSlash(key)) + typeSuffix); err == nil {
		w.Header().Set("Content-Type", string(ctype))
	} else if strings.HasSuffix(key, ".zip") { // a file kept before content types were
		w.Header().Set("Content-Type", "application/zip")
	}
	w.Header().Set("Cache-Control", "private, no-store")
	http.ServeContent(w, r, path.Base(key), st.ModTime(), f)
}
