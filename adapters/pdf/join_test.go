package pdf

import (
	"context"
	"fmt"
	"testing"

	"github.com/trawlhq/trawl/ports"
)

// Ragged-right text set with wide line spacing reads as a reader reads
// it: a line that does not end its sentence carries on into a line
// starting in lower case, and a word hyphenated at the line end is one
// word again. An empty line between them still starts a new paragraph. The PDFs are written here, one text object per page in
// Helvetica 11 pt, with the leading given.
func TestRaggedLinesJoin(t *testing.T) {
	const text = "(The water tem-) Tj T* (perature fell through the night and) Tj T* (the boats stayed in the harbour until) Tj T* (morning.) Tj T* T* " +
		"(A second paragraph starts here.) Tj"
	const want = "The water temperature fell through the night and the boats stayed in the harbour until morning.\n\nA second paragraph starts here."
	for _, leading := range []float64{13, 16.5, 22} {
		t.Run(fmt.Sprint(leading), func(t *testing.T) {
			content := fmt.Appendf(nil, "BT /F1 11 Tf %g TL 72 700 Td %s ET", leading, text)
			ex, err := converter(t).Convert(context.Background(), ports.DocumentRequest{Format: ports.DocumentPDF, Body: onePage(content, "")})
			if err != nil {
				t.Fatal(err)
			}
			if ex.Markdown != want {
				t.Errorf("got:\n%s\nwant:\n%s", ex.Markdown, want)
			}
		})
	}
}
