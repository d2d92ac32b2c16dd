package extractbench

import "testing"

func TestCheckStructure(t *testing.T) {
	page := `<html><body><nav><ul><li>Home page</li></ul></nav><main><h2>Tide times today</h2><p>The tide turns at noon.</p>
<ul><li>High water at noon</li><li>Low water at six</li></ul>
<table><tr><th>Port name</th><th>High water</th></tr><tr><td>North harbour</td><td>12:04 noon</td></tr></table>
<pre><code class="language-go">fmt.Println("tide turns")</code></pre><h3>Further reading here</h3></main></body></html>`
	truth := "Tide times today\nThe tide turns at noon.\nHigh water at noon\nLow water at six\nPort name High water\nNorth harbour 12:04 noon\nfmt.Println(\"tide turns\")\nFurther reading here"
	md := "## Tide times today\n\nThe tide turns at noon.\n\n- High water at noon\n\nLow water at six\n\n| Port name | High water |\n|---|---|\n| North harbour | 12:04 noon |\n\n```\nfmt.Println(\"tide turns\")\n```\n\n#### Further reading here\n\n[more](/more) [abs](https://example.com/x)"
	s := CheckStructure([]byte(page), truth, md)
	want := Structure{
		Headings: Kind{Main: 2, Shown: 2, Kept: 1}, // the h3 is written at level 4
		Items:    Kind{Main: 2, Shown: 2, Kept: 1}, // the second item lost its marker
		Cells:    Kind{Main: 4, Shown: 4, Kept: 4},
		Code:     Kind{Main: 1, Shown: 1, Kept: 1},
		CodeLang: Kind{Main: 1, Shown: 1, Kept: 0}, // the fence names no language
		Links:    2, Relative: 1,
	}
	if s != want {
		t.Fatalf("got  %+v\nwant %+v", s, want)
	}
}
