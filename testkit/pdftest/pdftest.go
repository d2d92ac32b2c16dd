// Package pdftest writes small PDF files for tests: hostile or odd
// documents made in the test rather than kept as fixtures.
package pdftest

import (
	"bytes"
	"fmt"
)

// Build writes objects 1..n (their bodies as given) with a correct
// cross-reference table; object 1 is the catalog.
func Build(objs ...[]byte) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.7\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n", i+1)
		b.Write(o)
		b.WriteString("\nendobj\n")
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}

// Stream is a stream object holding content.
func Stream(content string) []byte {
	return fmt.Appendf(nil, "<< /Length %d >>\nstream\n%s\nendstream", len(content), content)
}
