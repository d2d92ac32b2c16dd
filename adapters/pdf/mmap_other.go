//go:build !linux

package pdf

import "errors"

func mapAnon(uint64) ([]byte, error) { return nil, errors.ErrUnsupported }

func unmap([]byte) error { return nil }
