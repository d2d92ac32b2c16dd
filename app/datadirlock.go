package app

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/gofrs/flock"
)

// serveLockName is the file in the data directory that a server on SQLite
// holds locked while it runs.
const serveLockName = "serve.lock"

// lockDataDir makes the server the one owner of an SQLite data directory.
// SQLite is single-node: the server keeps the credit holds of the calls it
// is serving in its own memory, so a second server on the same file would
// not see them. A second `trawl serve` on the directory therefore stops at
// start-up, saying why; admin commands (tokens, accounts, migrate) take no
// lock and keep working beside the server. The lock is the operating
// system's, so it goes with the process, however that ends.
func lockDataDir(dir string) (release func(), err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("cannot create the data directory %s: %w", dir, err)
	}
	l := flock.New(filepath.Join(dir, serveLockName))
	ok, err := l.TryLock()
	if err != nil {
		return nil, fmt.Errorf("cannot lock the data directory %s: %w", dir, err)
	}
	if !ok {
		return nil, fmt.Errorf("another trawl serve is running on the data directory %s: SQLite is single-node (stop that server, choose another --data-dir, or run several nodes on PostgreSQL with --database)", dir)
	}
	return func() { _ = l.Unlock() }, nil
}
