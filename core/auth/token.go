// Package auth holds the rules of API tokens and accounts: the token format,
// how secrets are stored (SHA-256 only), bearer authentication, and the
// operator's account and token use cases.
package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"math/big"
	"strings"
)

const (
	// TokenPrefix starts every Trawl token.
	TokenPrefix = "trawl_"
	// TokenRandomLen is the number of random base62 characters after the prefix.
	TokenRandomLen = 40
	base62         = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
)

// NewSecret returns a fresh token secret: trawl_ + 40 uniformly random base62
// characters (about 238 bits).
func NewSecret() (string, error) {
	var b strings.Builder
	b.WriteString(TokenPrefix)
	limit := big.NewInt(int64(len(base62)))
	for range TokenRandomLen {
		n, err := rand.Int(rand.Reader, limit)
		if err != nil {
			return "", err
		}
		b.WriteByte(base62[n.Int64()])
	}
	return b.String(), nil
}

// WellFormed reports whether s has the shape of a Trawl token.
func WellFormed(s string) bool {
	if len(s) != len(TokenPrefix)+TokenRandomLen || !strings.HasPrefix(s, TokenPrefix) {
		return false
	}
	for i := len(TokenPrefix); i < len(s); i++ {
		if !isBase62[s[i]] {
			return false
		}
	}
	return true
}

// isBase62 marks the bytes of base62: WellFormed runs on every request.
var isBase62 = func() (t [256]bool) {
	for i := range len(base62) {
		t[base62[i]] = true
	}
	return t
}()

// HashSecret is what the store keeps of a secret: hex SHA-256.
func HashSecret(secret string) string {
	var in [64]byte // a token fits: hashed without a copy on the heap
	b := in[:0]
	if len(secret) > len(in) {
		b = nil
	}
	sum := sha256.Sum256(append(b, secret...))
	var out [2 * sha256.Size]byte
	hex.Encode(out[:], sum[:])
	return string(out[:])
}

// Preview shows a secret without revealing it: trawl_AbCd...WxYz.
func Preview(secret string) string {
	body := strings.TrimPrefix(secret, TokenPrefix)
	if len(body) < 8 {
		return TokenPrefix + "..."
	}
	return TokenPrefix + body[:4] + "..." + body[len(body)-4:]
}

// ParseBearer takes the secret out of an Authorization header value. ok is
// false for a missing or malformed header or a secret of the wrong shape.
func ParseBearer(header string) (secret string, ok bool) {
	scheme, rest, found := strings.Cut(strings.TrimSpace(header), " ")
	if !found || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	secret = strings.TrimSpace(rest)
	return secret, WellFormed(secret)
}
