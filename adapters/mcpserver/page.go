package mcpserver

import (
	"fmt"
	"mime"
	"strings"

	htmltomarkdown "github.com/JohannesKaufmann/html-to-markdown/v2"
	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/trawlhq/trawl/client"
)

// Page is what the page tools (content, scrape) answer: the page as
// Markdown with its metadata by default; its HTML instead when asked.
type Page struct {
	URL         string             `json:"url" jsonschema:"the URL that was read"`
	FinalURL    string             `json:"final_url,omitempty" jsonschema:"where redirects led, when elsewhere"`
	StatusCode  int                `json:"status_code" jsonschema:"the HTTP status the site answered"`
	ContentType string             `json:"content_type,omitempty" jsonschema:"the media type the site sent"`
	Engine      string             `json:"engine,omitempty" jsonschema:"how the page was read: http or browser"`
	Title       string             `json:"title,omitempty" jsonschema:"the page's title"`
	Metadata    *client.Metadata   `json:"metadata,omitempty" jsonschema:"the page's metadata: description, author, language, Open Graph fields"`
	Warning     string             `json:"warning,omitempty" jsonschema:"set when the content is not the whole source, e.g. a document cut at the page limit"`
	Markdown    string             `json:"markdown,omitempty" jsonschema:"the page as Markdown (format markdown, the default)"`
	HTML        string             `json:"html,omitempty" jsonschema:"the page's HTML (format html)"`
	Text        string             `json:"text,omitempty" jsonschema:"the body as it came, when the page is not HTML (plain text, JSON, XML)"`
	Screenshot  *client.Screenshot `json:"screenshot,omitempty" jsonschema:"the screenshot asked for: a PNG's signed link, its size in CSS pixels and when the link expires"`
	Cache       *client.Cache      `json:"cache,omitempty" jsonschema:"whether the page came from Trawl's page cache (hit) rather than the site, and its age in seconds; absent when the server keeps no cache"`
	Change      *client.Change     `json:"change,omitempty" jsonschema:"with changes: new, same or changed since this account's previous read (previous_at), and the unified diff of the Markdown"`
}

// contentPage is the content tool's answer: the main content's Markdown, or
// its clean HTML when asked.
func contentPage(c client.Content, f Format) Page {
	p := Page{URL: c.URL, StatusCode: c.StatusCode, Engine: c.Engine, Title: c.Metadata.Title, Warning: c.Warning, Screenshot: c.Screenshot, Cache: c.Cache, Change: c.Change}
	md := c.Metadata
	p.Metadata = &md
	if f == FormatHTML {
		p.HTML = c.HTML
	} else {
		p.Markdown = c.Markdown
	}
	return p
}

// scrapedPage is the scrape tool's answer: the whole page converted to
// Markdown (links made absolute), or its HTML as it came when asked. A body
// that is not HTML is given as it came.
func scrapedPage(s client.Scraped, f Format) Page {
	p := Page{URL: s.URL, StatusCode: s.StatusCode, ContentType: s.ContentType, Engine: s.Engine, Cache: s.Cache}
	if s.FinalURL != s.URL {
		p.FinalURL = s.FinalURL
	}
	mediaType, _, _ := mime.ParseMediaType(s.ContentType)
	isHTML := mediaType == "" || mediaType == "text/html" || mediaType == "application/xhtml+xml"
	switch {
	case f == FormatHTML:
		p.HTML = s.HTML
	case !isHTML:
		p.Text = s.HTML
	default:
		doc, err := html.Parse(strings.NewReader(s.HTML))
		if err != nil {
			p.Text = s.HTML
			break
		}
		p.Title = title(doc)
		base := s.FinalURL
		if base == "" {
			base = s.URL
		}
		md, err := htmltomarkdown.ConvertNode(doc, converter.WithDomain(base))
		if err != nil {
			p.Text = s.HTML
			break
		}
		p.Markdown = string(md)
	}
	return p
}

// title is the text of a document's first <title>.
func title(n *html.Node) string {
	if n.Type == html.ElementNode && n.DataAtom == atom.Title {
		var b strings.Builder
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.TextNode {
				b.WriteString(c.Data)
			}
		}
		return strings.Join(strings.Fields(b.String()), " ")
	}
	if n.Type == html.ElementNode && n.DataAtom == atom.Body {
		return ""
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if t := title(c); t != "" {
			return t
		}
	}
	return ""
}

// text is a page as an agent reads it: a few lines of metadata, a blank
// line, then the page itself.
func (p Page) text() string {
	var b strings.Builder
	line := func(name, value string) {
		if value != "" {
			fmt.Fprintf(&b, "%s: %s\n", name, value)
		}
	}
	line("URL", p.URL)
	line("Final URL", p.FinalURL)
	status := fmt.Sprintf("%d", p.StatusCode)
	if p.ContentType != "" {
		status += ", " + p.ContentType
	}
	if p.Engine != "" {
		status += ", engine " + p.Engine
	}
	line("Status", status)
	line("Title", p.Title)
	if p.Screenshot != nil {
		line("Screenshot", fmt.Sprintf("%s (%dx%d, until %s)", p.Screenshot.URL, p.Screenshot.Width, p.Screenshot.Height, p.Screenshot.ExpiresAt))
	}
	if m := p.Metadata; m != nil {
		line("Description", m.Description)
		line("Author", m.Author)
		line("Language", m.Language)
		if m.PageCount > 0 {
			line("Pages", fmt.Sprintf("%d", m.PageCount))
		}
	}
	line("Warning", p.Warning)
	if c := p.Cache; c != nil && c.Hit {
		line("Cache", fmt.Sprintf("hit, %d seconds old (not read from the site now)", c.Age))
	}
	if ch := p.Change; ch != nil {
		since := ""
		if ch.PreviousAt != nil {
			since = " since " + *ch.PreviousAt
		}
		line("Change", ch.Status+since)
		if ch.Diff != "" {
			b.WriteString("\n" + ch.Diff)
		}
	}
	b.WriteString("\n")
	b.WriteString(p.Markdown + p.HTML + p.Text)
	return b.String()
}
