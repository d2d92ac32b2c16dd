package docmodel

import (
	"strings"
	"testing"
)

func TestRender(t *testing.T) {
	r := Render([]Block{
		{Kind: Heading, Level: 1, Text: "Nets <and> Archives"},
		{Kind: Paragraph, Text: "First  paragraph\nwith *stars*."},
		{Kind: ListItem, Text: "one"},
		{Kind: ListItem, Text: "two"},
		{Kind: ListItem, Ordered: true, Text: "first"},
		{Kind: Paragraph, Text: "1. not a list"},
		{Kind: Table, Rows: [][]string{{"Harbour", "Vessels"}, {"North|port", "42"}, {"", ""}}},
		{Kind: Paragraph, Text: "   "},
	})
	wantHTML := "<h1>Nets &lt;and&gt; Archives</h1>\n<p>First paragraph with *stars*.</p>\n<ul>\n<li>one</li>\n<li>two</li>\n</ul>\n<ol>\n<li>first</li>\n</ol>\n<p>1. not a list</p>\n<table>\n<tr><th>Harbour</th><th>Vessels</th></tr>\n<tr><td>North|port</td><td>42</td></tr>\n</table>"
	if r.HTML != wantHTML {
		t.Errorf("html:\n%s\nwant:\n%s", r.HTML, wantHTML)
	}
	wantMD := "# Nets \\<and> Archives\n\nFirst paragraph with \\*stars\\*.\n\n- one\n- two\n\n1. first\n\n1\\. not a list\n\n| Harbour | Vessels |\n| --- | --- |\n| North\\|port | 42 |"
	if r.Markdown != wantMD {
		t.Errorf("markdown:\n%s\nwant:\n%s", r.Markdown, wantMD)
	}
	if !strings.Contains(r.Text, "North|port 42") || strings.Contains(r.Text, "#") {
		t.Errorf("text: %q", r.Text)
	}
}
