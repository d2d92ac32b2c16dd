package bulk

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/trawlhq/trawl/core/content"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

// ManifestName is the archive's index of every URL and its outcome.
const ManifestName = "manifest.json"

// Manifest is manifest.json: every URL of the job in order, with where its
// files are or why it failed.
type Manifest struct {
	Results []ManifestEntry `json:"results"`
}

// ManifestEntry is one URL in the manifest.
type ManifestEntry struct {
	URL        string          `json:"url"`
	Status     ports.URLStatus `json:"status"`
	Success    bool            `json:"success"`
	StatusCode int             `json:"statusCode"`
	Engine     string          `json:"engine,omitempty"`
	HTML       string          `json:"html,omitempty"`     // path in the archive
	Markdown   string          `json:"markdown,omitempty"` // path in the archive
	Error      *string         `json:"error"`
	Reason     failure.Reason  `json:"reason,omitempty"`
	Retryable  *bool           `json:"retryable,omitempty"`
}

// Archive builds the ZIP of a job's results: html/ and markdown/ trees
// following the URLs' paths, each file dated at, and manifest.json listing
// every URL with its files or the reason it failed.
func Archive(urls []ports.BulkURL, at time.Time) ([]byte, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	used := map[string]bool{}
	manifest := Manifest{Results: []ManifestEntry{}}
	for _, u := range urls {
		entry := ManifestEntry{URL: u.URL, Status: u.Status, Success: u.Status == ports.URLSucceeded, StatusCode: u.StatusCode, Engine: u.Engine}
		if u.Error != "" {
			msg := u.Error
			entry.Error = &msg
		}
		if reason, retry, ok := URLOutcome(u); ok {
			entry.Reason, entry.Retryable = reason, &retry
		}
		var obj content.Object
		if u.Status != ports.URLSucceeded || json.Unmarshal(u.Content, &obj) != nil {
			manifest.Results = append(manifest.Results, entry)
			continue
		}
		hp0, mp0 := ArchivePaths(u.URL)
		hp, mp := hp0, mp0
		for n := 2; used[hp]; n++ { // two URLs that map to one name (case, trailing slash) get -2, -3...
			hp = fmt.Sprintf("%s-%d.html", strings.TrimSuffix(hp0, ".html"), n)
			mp = fmt.Sprintf("%s-%d.md", strings.TrimSuffix(mp0, ".md"), n)
		}
		used[hp] = true
		entry.HTML, entry.Markdown = hp, mp
		manifest.Results = append(manifest.Results, entry)
		page := "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>" + escape(obj.Metadata.Title) + "</title>" +
			"<link rel=\"canonical\" href=\"" + escape(u.URL) + "\"></head><body>\n" + obj.HTML + "\n</body></html>\n"
		for name, data := range map[string]string{hp: page, mp: obj.Markdown + "\n"} {
			f, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: at.UTC()})
			if err != nil {
				return nil, err
			}
			if _, err := f.Write([]byte(data)); err != nil {
				return nil, err
			}
		}
	}
	index, err := json.MarshalIndent(manifest, "", "  ")
	if err != nil {
		return nil, err
	}
	f, err := zw.CreateHeader(&zip.FileHeader{Name: ManifestName, Method: zip.Deflate, Modified: at.UTC()})
	if err != nil {
		return nil, err
	}
	if _, err := f.Write(append(index, '\n')); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func escape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}

// ResultsMail is the message that links to a job's archive.
func ResultsMail(from, to, jobID, link string, ok, failed int, ttl time.Duration) ports.Mail {
	days := int(ttl.Hours() / 24)
	expiry := fmt.Sprintf("%d days", days)
	if days < 1 {
		expiry = ttl.String()
	}
	subject := fmt.Sprintf("Your Trawl bulk extraction is ready: %d of %d URLs extracted", ok, ok+failed)
	text := fmt.Sprintf("Hello,\n\nYour bulk content job %s has finished: %d URL(s) extracted, %d failed (failed URLs are not charged).\n\n"+
		"Download the results (a ZIP with html/ and markdown/ folders):\n%s\n\nThe link expires in %s.\n\n-- Trawl\n", jobID, ok, failed, link, expiry)
	html := fmt.Sprintf(`<p>Hello,</p><p>Your bulk content job <code>%s</code> has finished: <strong>%d</strong> URL(s) extracted, %d failed (failed URLs are not charged).</p>`+
		`<p><a href="%s">Download the results</a> (a ZIP with <code>html/</code> and <code>markdown/</code> folders). The link expires in %s.</p><p>— Trawl</p>`,
		escape(jobID), ok, failed, escape(link), expiry)
	return ports.Mail{From: from, To: to, Subject: subject, Text: text, HTML: html}
}
