package pdf

import "syscall"

// mapAnon reserves n bytes of zeroed memory that take no room until
// written (MAP_NORESERVE: no swap is set aside for the untouched part).
func mapAnon(n uint64) ([]byte, error) {
	b, err := syscall.Mmap(-1, 0, int(n), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANONYMOUS|syscall.MAP_NORESERVE)
	return b[:0], err
}

func unmap(b []byte) error { return syscall.Munmap(b[:cap(b)]) }
