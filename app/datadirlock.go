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
	return lockServe(filepath.Join(dir, serveLockName), "data directory "+dir, "choose another --data-dir")
}

// lockSQLiteFile does the same for an SQLite file named with --database: a
// lock file beside it, so that two servers cannot share the file either
// (each would keep its own holds and its own per-host crawl gate).
func lockSQLiteFile(path string) (release func(), err error) {
	return lockServe(path+"."+serveLockName, "SQLite database "+path, "choose another --database")
}

func lockServe(lockPath, what, other string) (release func(), err error) {
	l := flock.New(lockPath)
	ok, err := l.TryLock()
	if err != nil {
		return nil, fmt.Errorf("cannot lock the %s: %w", what, err)
	}
	if !ok {
		return nil, fmt.Errorf("another trawl serve is running on the %s: SQLite is single-node (stop that server, %s, or run several nodes on PostgreSQL with --database)", what, other)
	}
	return func() { _ = l.Unlock() }, nil
}
