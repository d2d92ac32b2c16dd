// Package password hashes dashboard passwords with argon2id
// (golang.org/x/crypto/argon2) in the PHC string format, so the parameters
// travel with each hash and can be raised without invalidating old ones.
package password

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/crypto/argon2"

	"github.com/trawlhq/trawl/ports"
)

// Params are the argon2id costs.
type Params struct {
	MemoryKiB uint32
	Time      uint32
	Threads   uint8
}

// Default follows OWASP's minimum for argon2id: 19 MiB, 2 passes, 1 lane.
var Default = Params{MemoryKiB: 19 * 1024, Time: 2, Threads: 1}

const (
	saltLen = 16
	keyLen  = 32
)

// Argon2id implements ports.PasswordHasher.
type Argon2id struct{ p Params }

var _ ports.PasswordHasher = Argon2id{}

// New builds a hasher; zero params take Default.
func New(p Params) Argon2id {
	if p.MemoryKiB == 0 || p.Time == 0 || p.Threads == 0 {
		p = Default
	}
	return Argon2id{p: p}
}

var b64 = base64.RawStdEncoding

// Hash returns $argon2id$v=19$m=..,t=..,p=..$salt$key.
func (a Argon2id) Hash(password string) (string, error) {
	salt := make([]byte, saltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	key := argon2.IDKey([]byte(password), salt, a.p.Time, a.p.MemoryKiB, a.p.Threads, keyLen)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, a.p.MemoryKiB, a.p.Time, a.p.Threads, b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

var errFormat = errors.New("password: not an argon2id hash")

// Verify recomputes the key with the hash's own parameters and compares in
// constant time.
func (a Argon2id) Verify(hash, password string) (bool, error) {
	parts := strings.Split(hash, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false, errFormat
	}
	var version int
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return false, errFormat
	}
	var p Params
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &p.MemoryKiB, &p.Time, &p.Threads); err != nil || p.Time == 0 || p.Threads == 0 || p.MemoryKiB == 0 || p.MemoryKiB > 1<<21 {
		return false, errFormat
	}
	salt, err := b64.DecodeString(parts[4])
	if err != nil {
		return false, errFormat
	}
	want, err := b64.DecodeString(parts[5])
	if err != nil || len(want) == 0 {
		return false, errFormat
	}
	got := argon2.IDKey([]byte(password), salt, p.Time, p.MemoryKiB, p.Threads, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}
