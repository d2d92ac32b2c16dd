package extract_test

import (
	"testing"
)

// A code block keeps its comments, though the highlighter names their
// tokens like a comment thread ("hljs-comment").
func TestCodeCommentsKept(t *testing.T) {
	body := ""
	for _, w := range []string{"Git keeps the whole history of a project", "Every clone is a full copy of it", "Branches are cheap to make and to merge"} {
		body += `<p>` + w + `, which is why teams of every size use it to share their work on the same files without locking them.</p>`
	}
	code := `<pre><code class="language-bash"><span class="hljs-comment"># initialize a repository here</span>
git init
<span class="hljs-comment"># see what changed since the last commit</span>
git status</code></pre>`
	page := `<html><head><title>Git basics</title></head><body><article><h1>Git basics</h1>` + body + code + body + `</article></body></html>`
	out, err := extractHTML(t, page)
	if err != nil {
		t.Fatal(err)
	}
	wantIn(t, out.Text, "# initialize a repository here", "# see what changed since the last commit", "git status")
}
