package pdf

import (
	"maps"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/trawlhq/trawl/adapters/docmodel"
)

// softHyphen is how PDFium reports the hyphen of a word broken at the end
// of a line.
const softHyphen = "\x02"

// run is a piece of text PDFium places on a page: one font, one line. The
// coordinates are PDF points with the origin at the bottom left.
type run struct {
	Text                  string
	Left, Right, Top, Bot float64
	Size                  float64
}

// page is the text of one page.
type page struct {
	Width, Height float64
	Runs          []run
}

// line is runs sharing a baseline.
type line struct {
	text                  string
	cells                 []cell // the runs split where the gap is wide (table columns)
	left, right, top, bot float64
	size                  float64
	hyphen                bool // ends with a soft hyphen
	page                  int
}

type cell struct {
	text        string
	left, right float64
}

func (l *line) mid() float64 { return (l.top + l.bot) / 2 }

// lines joins a page's runs into lines, in the order PDFium reports them
// (content order), and puts two-column pages in reading order.
func lines(p page, pageNo int) []*line {
	var out []*line
	var cur *line
	var curChars int
	for _, r := range p.Runs {
		t := strings.ReplaceAll(r.Text, "\r\n", " ")
		t = strings.Map(func(c rune) rune {
			if c == '\r' || c == '\n' || c == '\t' {
				return ' '
			}
			if c == '\x02' || c == 0xAD {
				return '\x02'
			}
			if unicode.IsControl(c) {
				return -1
			}
			return c
		}, t)
		if strings.TrimSpace(t) == "" {
			continue
		}
		h := r.Top - r.Bot
		if cur != nil && math.Abs((r.Top+r.Bot)/2-cur.mid()) < math.Max(h, cur.top-cur.bot)*0.5 && r.Left >= cur.left-1 {
			if t == softHyphen || strings.TrimSpace(t) == softHyphen {
				cur.hyphen = true
				continue
			}
			// A superscript note mark (smaller, raised digits) is not text.
			if r.Size < cur.size*0.8 && (r.Top+r.Bot)/2 > cur.mid()+1 && isDigits(strings.TrimSpace(t)) {
				continue
			}
			gap := r.Left - cur.right
			if gap > cur.size*1.2 {
				cur.cells = append(cur.cells, cell{text: strings.TrimSpace(t), left: r.Left, right: r.Right})
			} else {
				c := &cur.cells[len(cur.cells)-1]
				c.text = joinWords(c.text, t, gap > cur.size*0.15)
				c.right = r.Right
			}
			cur.text = joinWords(cur.text, t, gap > cur.size*0.15)
			cur.right = math.Max(cur.right, r.Right)
			cur.top, cur.bot = math.Max(cur.top, r.Top), math.Min(cur.bot, r.Bot)
			if n := utf8.RuneCountInString(t); n > curChars {
				cur.size, curChars = r.Size, n
			}
			continue
		}
		if strings.TrimSpace(t) == softHyphen {
			continue
		}
		cur = &line{text: strings.TrimSpace(t), left: r.Left, right: r.Right, top: r.Top, bot: r.Bot, size: r.Size, page: pageNo,
			cells: []cell{{text: strings.TrimSpace(t), left: r.Left, right: r.Right}}}
		curChars = utf8.RuneCountInString(t)
		out = append(out, cur)
	}
	for _, l := range out {
		if strings.HasSuffix(l.text, softHyphen) {
			l.text, l.hyphen = strings.TrimSuffix(l.text, softHyphen), true
		}
		l.text = strings.TrimSpace(strings.ReplaceAll(l.text, softHyphen, ""))
		if strings.Count(l.text, ".") >= 4 { // the least leaders holds
			l.text = leaders.ReplaceAllString(l.text, " ")
		}
	}
	return columnOrder(out, p.Width)
}

// leaders are the dots of a table of contents between a title and its page.
var leaders = regexp.MustCompile(`(?:\s*\.){4,}\s*`)

func joinWords(a, b string, space bool) string {
	if space && !strings.HasSuffix(a, " ") && !strings.HasPrefix(b, " ") {
		return a + " " + b
	}
	return a + b
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// columnOrder reads a two-column page column by column: lines spanning
// the middle above the columns first, then the left column, the right
// column, and the spanning lines below.
func columnOrder(ls []*line, width float64) []*line {
	if width <= 0 || len(ls) < 6 {
		return ls
	}
	mid := width / 2
	var left, right int
	for _, l := range ls {
		switch {
		case l.right < mid+2:
			left++
		case l.left > mid-2:
			right++
		}
	}
	// Most lines sit in one half: a one-column page has short lines in
	// either half too, but most of its lines cross the middle.
	if left < 3 || right < 3 || left+right < len(ls)*7/10 {
		return ls
	}
	colTop := math.Inf(-1)
	for _, l := range ls {
		if l.right < mid+2 || l.left > mid-2 {
			colTop = math.Max(colTop, l.top)
		}
	}
	group := func(l *line) int {
		switch {
		case l.right < mid+2:
			return 1
		case l.left > mid-2:
			return 2
		case l.top >= colTop:
			return 0
		default:
			return 3
		}
	}
	out := append([]*line(nil), ls...)
	sort.SliceStable(out, func(i, j int) bool {
		gi, gj := group(out[i]), group(out[j])
		if gi != gj {
			return gi < gj
		}
		return out[i].top > out[j].top+1
	})
	return out
}

var (
	digitsRun  = regexp.MustCompile(`\d+`)
	pageNumber = regexp.MustCompile(`(?i)^(page\s*)?(\d{1,5}|[ivxlc]{1,7})(\s*(of|/)\s*\d{1,5})?$|^[-–—]\s*\d{1,5}\s*[-–—]$`)
)

func runningKey(s string) string {
	return strings.Join(strings.Fields(strings.ToLower(digitsRun.ReplaceAllString(s, "#"))), " ")
}

// dropRunning removes running headers and footers (a line at the top or
// bottom of a page whose text, numbers aside, repeats on many pages) and
// page numbers.
func dropRunning(pages [][]*line, body float64) [][]*line {
	const edge = 2 // lines looked at, at each end of a page
	ends := func(ls []*line) []*line {
		byY := append([]*line(nil), ls...)
		sort.SliceStable(byY, func(i, j int) bool { return byY[i].top > byY[j].top })
		var out []*line
		for i := 0; i < len(byY) && i < edge; i++ {
			out = append(out, byY[i])
		}
		for i := max(len(byY)-edge, edge); i < len(byY); i++ {
			out = append(out, byY[i])
		}
		return out
	}
	// Each page's end lines, and their keys, once.
	endsOf := make([][]*line, len(pages))
	keys := map[*line]string{}
	for i, ls := range pages {
		endsOf[i] = ends(ls)
		for _, l := range endsOf[i] {
			if _, ok := keys[l]; !ok {
				keys[l] = runningKey(l.text)
			}
		}
	}
	count := map[string]int{}
	for pi := range pages {
		seen := map[string]bool{}
		for _, l := range endsOf[pi] {
			k := keys[l]
			if !seen[k] {
				seen[k] = true
				count[k]++
			}
		}
	}
	need := max(2, (len(pages)+1)/2)
	drop := map[*line]bool{}
	// A header or footer whose words change (the chapter title) but which
	// carries the page number: the printed number is the page index plus
	// one offset on many pages.
	offsets := map[int]int{}
	for pi := range pages {
		for _, l := range endsOf[pi] {
			if n, ok := edgeNumber(l.text); ok {
				offsets[n-pi]++
			}
		}
	}
	// The most frequent offset; of offsets as frequent, the lowest (the
	// same answer on every run, whatever the map's order).
	offset, hits := 0, 0
	for _, o := range slices.Sorted(maps.Keys(offsets)) {
		if n := offsets[o]; n > hits {
			offset, hits = o, n
		}
	}
	if hits >= max(3, len(pages)/3) {
		for pi := range pages {
			for _, l := range endsOf[pi] {
				if n, ok := edgeNumber(l.text); ok && n-pi == offset && l.size <= body*1.05 {
					drop[l] = true
				}
			}
		}
	}
	for pi := range pages {
		for _, l := range endsOf[pi] {
			small := l.size <= body*1.05
			if small && len(pages) >= 2 && count[keys[l]] >= need {
				drop[l] = true
			}
			if pageNumber.MatchString(strings.TrimSpace(l.text)) {
				drop[l] = true
			}
		}
	}
	out := make([][]*line, len(pages))
	for i, ls := range pages {
		for _, l := range ls {
			if !drop[l] {
				out[i] = append(out[i], l)
			}
		}
	}
	return out
}

var edgeNum = regexp.MustCompile(`^(\d{1,5})\s+\S|\S\s+(\d{1,5})$`)

// edgeNumber is the number a short line starts or ends with, set apart by
// a space ("Chapter 2: Handling 3", "12 Annual report").
func edgeNumber(s string) (int, bool) {
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) > 120 {
		return 0, false
	}
	m := edgeNum.FindStringSubmatch(s)
	if m == nil {
		return 0, false
	}
	d := m[1] + m[2]
	n := 0
	for _, c := range d {
		n = n*10 + int(c-'0')
	}
	return n, true
}

// bodySize is the size most of the text is set in.
func bodySize(pages [][]*line) float64 {
	weight := map[float64]int{}
	for _, ls := range pages {
		for _, l := range ls {
			weight[math.Round(l.size*2)/2] += utf8.RuneCountInString(l.text)
		}
	}
	best, bw := 0.0, -1
	for s, w := range weight {
		if w > bw || (w == bw && s < best) {
			best, bw = s, w
		}
	}
	return best
}

var (
	bullet  = regexp.MustCompile(`^(?:[•◦▪▫●○■□‣⁃∙·]\s*|[*–-]\s+)`)
	ordinal = regexp.MustCompile(`^(\(?\d{1,3}[.)]|\(?[a-z][.)])\s+`)
)

// endsSentence says whether s ends with a mark that closes a sentence or
// a clause: . ! ? … : ; " ” » ) ]
func endsSentence(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	switch r {
	case '.', '!', '?', '…', ':', ';', '"', '”', '»', ')', ']':
		return true
	}
	return false
}

// structure turns the lines of a document into blocks: headings by type
// size, paragraphs re-flowed across lines, columns and pages, hyphenated
// words joined, list items, tables; footnotes (small type at the foot of a
// page) go to the end.
func structure(pages [][]*line, heights []float64) []docmodel.Block {
	body := bodySize(pages)
	pages = dropRunning(pages, body)
	if body == 0 {
		body = bodySize(pages)
	}
	// Heading levels: the distinct sizes larger than the body, largest first.
	var sizes []float64
	seen := map[float64]bool{}
	for _, ls := range pages {
		for _, l := range ls {
			s := math.Round(l.size*2) / 2
			if l.size >= body*1.12 && !seen[s] && utf8.RuneCountInString(l.text) < 200 {
				seen[s] = true
				sizes = append(sizes, s)
			}
		}
	}
	sort.Sort(sort.Reverse(sort.Float64Slice(sizes)))
	level := func(size float64) int {
		s := math.Round(size*2) / 2
		for i, x := range sizes {
			if x == s {
				return min(i+1, 6)
			}
		}
		return 0
	}

	var blocks []docmodel.Block
	var notes []docmodel.Block
	var prev *line       // the last line added to the open block
	open := -1           // index of the open block in blocks, -1 if none
	var itemLeft float64 // where the open list item's text starts
	var table *tableState
	closeTable := func() {
		if table != nil {
			table.flush(&blocks)
			table = nil
		}
	}
	for pi, ls := range pages {
		// Footnotes: small lines in the lower part of the page, below the
		// last body-size line.
		lowestBody := math.Inf(1)
		for _, l := range ls {
			if l.size > body*0.88 {
				lowestBody = math.Min(lowestBody, l.bot)
			}
		}
		footZone := heights[pi] * 0.4
		for i := 0; i < len(ls); i++ {
			l := ls[i]
			if l.size <= body*0.88 && l.top < lowestBody && (footZone == 0 || l.top < footZone) {
				notes = appendNote(notes, l)
				continue
			}
			// Tables: runs of lines split into aligned cells.
			if len(l.cells) >= 2 && !isListStart(l.text) {
				if table != nil && table.fits(l) {
					table.add(l)
					prev, open = l, -1
					continue
				}
				if i+1 < len(ls) && len(ls[i+1].cells) >= 2 && aligned(l, ls[i+1]) {
					closeTable()
					table = &tableState{}
					table.add(l)
					prev, open = l, -1
					continue
				}
			}
			closeTable()
			if lv := level(l.size); lv > 0 {
				if open >= 0 && blocks[open].Kind == docmodel.Heading && blocks[open].Level == lv && prev != nil && prev.page == l.page && prev.bot-l.top < l.size {
					blocks[open].Text = joinLine(blocks[open].Text, prev, l.text)
				} else {
					blocks = append(blocks, docmodel.Block{Kind: docmodel.Heading, Level: lv, Text: l.text})
					open = len(blocks) - 1
				}
				prev = l
				continue
			}
			if m := bullet.FindString(l.text); m != "" && isListStart(l.text) {
				text := strings.TrimSpace(l.text[len(m):])
				blocks = append(blocks, docmodel.Block{Kind: docmodel.ListItem, Text: text})
				open, prev, itemLeft = len(blocks)-1, l, itemStart(l)
				continue
			}
			if m := ordinal.FindString(l.text); m != "" && isListStart(l.text) {
				blocks = append(blocks, docmodel.Block{Kind: docmodel.ListItem, Ordered: true, Text: strings.TrimSpace(l.text[len(m):])})
				open, prev, itemLeft = len(blocks)-1, l, itemStart(l)
				continue
			}
			if open >= 0 && prev != nil && continues(blocks[open], prev, l, body, itemLeft) {
				blocks[open].Text = joinLine(blocks[open].Text, prev, l.text)
				prev = l
				continue
			}
			blocks = append(blocks, docmodel.Block{Kind: docmodel.Paragraph, Text: l.text})
			open, prev = len(blocks)-1, l
		}
	}
	closeTable()
	return append(blocks, notes...)
}

func isListStart(s string) bool {
	if m := bullet.FindString(s); m != "" {
		return len([]rune(strings.TrimSpace(s))) > 1
	}
	return ordinal.MatchString(s)
}

func itemStart(l *line) float64 {
	if len(l.cells) >= 2 {
		return l.cells[1].left
	}
	return l.left
}

func appendNote(notes []docmodel.Block, l *line) []docmodel.Block {
	t := l.text
	if len(l.cells) >= 2 && isDigits(l.cells[0].text) {
		t = strings.TrimSpace(strings.TrimPrefix(t, l.cells[0].text))
	}
	return append(notes, docmodel.Block{Kind: docmodel.Paragraph, Text: t})
}

// continues says whether line l carries on the open block after prev.
func continues(b docmodel.Block, prev, l *line, body float64, itemLeft float64) bool {
	if b.Kind == docmodel.Heading || b.Kind == docmodel.Table {
		return false
	}
	if math.Abs(l.size-prev.size) > 0.6 {
		return false
	}
	if b.Kind == docmodel.ListItem && l.left < itemLeft-2 {
		return false
	}
	ended := endsSentence(b.Text)
	if l.page != prev.page {
		return !ended
	}
	gap := prev.bot - l.top
	if gap < -prev.size { // went up the page: the next column
		return !ended
	}
	if gap > l.size*0.6 {
		// Wider line spacing (one and a half, double) leaves a gap like a
		// paragraph's. A reader still carries on the sentence when the line
		// neither ends it nor is followed by a capital: "The water tem-" /
		// "perature fell", "fell through the" / "night".
		return gap <= l.size*1.6 && !ended && startsLower(l.text)
	}
	return true
}

func startsLower(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsLower(r)
}

// joinLine appends the next line's text to a block, joining a word
// hyphenated across the line break.
func joinLine(text string, prev *line, next string) string {
	if prev.hyphen {
		r, _ := utf8.DecodeRuneInString(next)
		if unicode.IsUpper(r) {
			return text + "-" + next
		}
		return text + next
	}
	if strings.HasSuffix(text, "-") && !strings.HasSuffix(text, " -") {
		r, _ := utf8.DecodeRuneInString(next)
		if unicode.IsLower(r) {
			return text + next // a hyphen the producer typed as such: keep it, join the word
		}
	}
	return text + " " + next
}

// tableState gathers the rows of a table: lines whose cells start at the
// same column positions.
type tableState struct {
	cols []float64
	rows [][]string
}

func (t *tableState) add(l *line) {
	if t.cols == nil {
		for _, c := range l.cells {
			t.cols = append(t.cols, c.left)
		}
	}
	row := make([]string, len(t.cols))
	for _, c := range l.cells {
		row[nearest(t.cols, c.left)] = strings.TrimSpace(row[nearest(t.cols, c.left)] + " " + c.text)
	}
	t.rows = append(t.rows, row)
}

func (t *tableState) fits(l *line) bool {
	for _, c := range l.cells {
		if math.Abs(t.cols[nearest(t.cols, c.left)]-c.left) > 8 {
			return false
		}
	}
	return true
}

func (t *tableState) flush(blocks *[]docmodel.Block) {
	*blocks = append(*blocks, docmodel.Block{Kind: docmodel.Table, Rows: t.rows})
}

func nearest(cols []float64, x float64) int {
	best := 0
	for i, c := range cols {
		if math.Abs(c-x) < math.Abs(cols[best]-x) {
			best = i
		}
	}
	return best
}

// aligned: two lines whose cells start at the same positions.
func aligned(a, b *line) bool {
	if len(a.cells) != len(b.cells) {
		return false
	}
	for i := range a.cells {
		if math.Abs(a.cells[i].left-b.cells[i].left) > 8 {
			return false
		}
	}
	return true
}
