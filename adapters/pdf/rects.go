package pdf

// This file is a port of go-pdfium's internal/textextract (MIT License,
// Copyright (c) 2022 Klippa App BV), which reimplements PDFium's
// CPDF_TextPage::GetTextByRect on the Go side: given every character's box,
// origin and code point, the text of each of a page's rectangles is what
// FPDFText_GetBoundedText returns for it, without scanning the page's
// characters once per rectangle inside the module. The package is internal
// to go-pdfium, hence the copy; the names are this package's.

import (
	"errors"
	"math"
	"slices"
	"unicode/utf8"
)

// pdfChar is the per-character data GetTextByRect operates on, in PDFium's own
// float32 precision. Box coordinates may be un-normalized, as PDFium stores
// them. The origin is read only for the characters that need it
// (charIndex.origin).
type pdfChar struct {
	Left, Bottom, Right, Top float32
	Unicode                  rune
}

const charBuckets = 2048

// charIndex answers GetTextByRect queries over a fixed list of page chars.
// Its memory is kept for the next page (reset, build).
type charIndex struct {
	chars []pdfChar

	// origin reads char i's origin's y (FPDFText_GetCharOrigin); the
	// values read are kept in originY, NaN for one not read yet.
	origin  func(i int) float32
	originY []float32

	// normalized boxes, indexed like chars
	nl, nb, nr, nt []float32

	// nonSpacePrefix[i] = number of chars in [0, i) whose Unicode != ' '.
	nonSpacePrefix []int32

	// y-bucket index over the normalized boxes: bucket b holds
	// bucketChars[bucketStart[b]:bucketStart[b+1]], in char order.
	bucketStart []int32
	bucketChars []int32
	minY        float32
	bucketH     float32
	seen        []int32
	epoch       int32
	matchBuf    []int32
	textBuf     []byte
}

// reset empties the index for a page of n chars and returns the slice
// to append them to.
func (e *charIndex) reset(n int) []pdfChar {
	if cap(e.chars) < n {
		e.chars = make([]pdfChar, 0, n)
	}
	return e.chars[:0]
}

// grow returns s with length n, its contents unspecified.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// maxBucketEntries bounds a page's index: a character is listed in every
// y-bucket its box spans, so a hostile page of many tall characters would
// need gigabytes (a dense legible page needs a few hundred thousand). At
// 16 MiB it stays inside a worker's margin over the reader's cap.
const maxBucketEntries = 1 << 22

var errPageTooDense = errors.New("pdf: the page's characters are too many and too tall to index")

// build indexes chars (the slice reset returned, filled).
func (e *charIndex) build(chars []pdfChar, origin func(i int) float32) error {
	e.chars, e.origin = chars, origin
	n := len(chars)
	e.nl, e.nb, e.nr, e.nt = grow(e.nl, n), grow(e.nb, n), grow(e.nr, n), grow(e.nt, n)
	e.nonSpacePrefix = grow(e.nonSpacePrefix, n+1)
	e.seen = grow(e.seen, n)
	clear(e.seen)
	e.epoch = 0
	e.originY = grow(e.originY, n)
	nan := float32(math.NaN())
	for i := range e.originY {
		e.originY[i] = nan
	}

	minY, maxY := float32(0), float32(0)
	e.nonSpacePrefix[0] = 0
	for i := range chars {
		l, r := chars[i].Left, chars[i].Right
		if l > r {
			l, r = r, l
		}
		b, t := chars[i].Bottom, chars[i].Top
		if b > t {
			b, t = t, b
		}
		e.nl[i], e.nr[i], e.nb[i], e.nt[i] = l, r, b, t

		if i == 0 {
			minY, maxY = b, t
		} else {
			if b < minY {
				minY = b
			}
			if t > maxY {
				maxY = t
			}
		}

		e.nonSpacePrefix[i+1] = e.nonSpacePrefix[i]
		if chars[i].Unicode != ' ' {
			e.nonSpacePrefix[i+1]++
		}
	}

	numBuckets := min(max(n/4, 1), charBuckets)
	if maxY <= minY {
		numBuckets = 1
	}

	e.minY = minY
	e.bucketH = 0
	if numBuckets > 1 {
		e.bucketH = (maxY - minY) / float32(numBuckets)
	}

	// Counted first, then filled: one slice for all buckets.
	e.bucketStart = grow(e.bucketStart, numBuckets+1)
	clear(e.bucketStart)
	entries := 0
	for i := range chars {
		lo, hi := e.bucketRange(e.nb[i], e.nt[i])
		if entries += hi - lo + 1; entries > maxBucketEntries {
			return errPageTooDense
		}
		for bkt := lo; bkt <= hi; bkt++ {
			e.bucketStart[bkt+1]++
		}
	}
	for b := 1; b <= numBuckets; b++ {
		e.bucketStart[b] += e.bucketStart[b-1]
	}
	e.bucketChars = grow(e.bucketChars, int(e.bucketStart[numBuckets]))
	fill := e.matchBuf[:0]
	fill = append(fill, e.bucketStart[:numBuckets]...)
	for i := range chars {
		lo, hi := e.bucketRange(e.nb[i], e.nt[i])
		for bkt := lo; bkt <= hi; bkt++ {
			e.bucketChars[fill[bkt]] = int32(i)
			fill[bkt]++
		}
	}
	e.matchBuf = fill[:0]
	return nil
}

// keepBucketEntries and keepChars: an index larger than this after a page
// is not kept for the next one (memory held to the end of the document).
const keepBucketEntries, keepChars = 1 << 20, 1 << 17

// large tells an index too large to keep.
func (e *charIndex) large() bool {
	return cap(e.bucketChars) > keepBucketEntries || cap(e.chars) > keepChars
}

// bucket is the chars of bucket b.
func (e *charIndex) bucket(b int) []int32 {
	return e.bucketChars[e.bucketStart[b]:e.bucketStart[b+1]]
}

// originYOf is char i's origin's y, read once.
func (e *charIndex) originYOf(i int32) float32 {
	y := e.originY[i]
	if y != y { // NaN: not read yet
		y = e.origin(int(i))
		e.originY[i] = y
	}
	return y
}

func (e *charIndex) bucketRange(b, t float32) (int, int) {
	if e.bucketH <= 0 {
		return 0, 0
	}
	lo := int((b - e.minY) / e.bucketH)
	hi := int((t - e.minY) / e.bucketH)
	if lo < 0 {
		lo = 0
	}
	// Both ends must be clamped: for a rect entirely above the page content lo
	// alone can land past the last bucket, and the hi < lo fixup below would
	// then hand that out-of-range index straight to the bucket loop.
	last := len(e.bucketStart) - 2 // the number of buckets less one
	if lo > last {
		lo = last
	}
	if hi > last {
		hi = last
	}
	if hi < lo {
		hi = lo
	}
	return lo, hi
}

// textIn returns exactly what FPDFText_GetBoundedText(left, top, right,
// bottom) returns for this page, as a Go string.
func (e *charIndex) textIn(left, top, right, bottom float32) string {
	// CFX_FloatRect::Intersect normalizes both rects first.
	if left > right {
		left, right = right, left
	}
	if bottom > top {
		top, bottom = bottom, top
	}

	// Collect the chars whose box intersects the rect (PDFium's IsRectIntersect:
	// strictly positive overlap in both axes).
	matched := e.matchBuf[:0]
	e.epoch++
	lo, hi := e.bucketRange(bottom, top)
	for bkt := lo; bkt <= hi; bkt++ {
		for _, i := range e.bucket(bkt) {
			if e.seen[i] == e.epoch {
				continue
			}
			e.seen[i] = e.epoch
			il := max32(left, e.nl[i])
			ir := min32(right, e.nr[i])
			if il >= ir {
				continue
			}
			ib := max32(bottom, e.nb[i])
			it := min32(top, e.nt[i])
			if ib >= it {
				continue
			}
			matched = append(matched, i)
		}
	}
	e.matchBuf = matched
	if len(matched) == 0 {
		return ""
	}
	if lo != hi { // one bucket's chars come in char order already
		slices.Sort(matched)
	}

	// Direct port of CPDF_TextPage::GetTextByPredicate. The flag state between
	// two matched chars only depends on the unmatched chars in the gap:
	//   - IsContainPreChar survives only across an empty gap.
	//   - The first gap char being a space appends one ' '.
	//   - IsAddLineFeed ends up true iff the gap contains any non-space char.
	out := e.textBuf[:0]
	posy := float32(0)
	containPre := false
	addLineFeed := false
	prev := int32(-1)

	for _, m := range matched {
		gapStart := prev + 1
		if prev >= 0 {
			if m > gapStart {
				if e.chars[gapStart].Unicode == ' ' {
					out = append(out, ' ')
				}
				containPre = false
				addLineFeed = e.nonSpacePrefix[m]-e.nonSpacePrefix[gapStart] > 0
			}
		} else {
			// Chars before the first match: IsContainPreChar starts false and
			// only the else-branch (non-space) can set IsAddLineFeed.
			containPre = false
			addLineFeed = e.nonSpacePrefix[m] > 0
		}

		c := &e.chars[m]
		if !containPre && addLineFeed && posy-e.originYOf(m) != 0 {
			posy = e.originYOf(m)
			if len(out) > 0 {
				out = append(out, '\r', '\n')
			}
		}
		containPre = true
		addLineFeed = false
		if c.Unicode != 0 {
			out = utf8.AppendRune(out, c.Unicode)
		}
		prev = m
	}

	// Trailing unmatched space directly after the last matched char.
	if int(prev+1) < len(e.chars) && e.chars[prev+1].Unicode == ' ' {
		out = append(out, ' ')
	}

	e.textBuf = out
	return string(out)
}

// sizeEpsilon mirrors CPDF_TextPage's constant: chars with a box narrower or
// shorter than this (in particular PDFium's generated space/newline chars,
// which have a zero-size box) never contribute to a rect.
const sizeEpsilon = 0.01

// pdfRect is a text rect as FPDFText_GetRect returns it.
type pdfRect struct {
	Left, Top, Right, Bottom float32
}

// firstChars returns, for every rect in rects, the index of the first
// char that makes up that rect, or -1 when no char lies in it. rects must be
// all rects of the page in FPDFText_GetRect order.
//
// PDFium builds its rects (CPDF_TextPage::GetRectArray) by walking the chars
// in order and taking the union of the char boxes of each run of chars that
// share a text object, skipping generated and degenerate chars. Every char of
// a rect therefore lies inside it, and the rects come out in char order. This
// method replays that walk from the geometry alone: a run starts at the first
// unassigned char inside the rect and continues while chars stay inside it.
// Text objects drawn over each other make the pure geometric walk ambiguous,
// which is resolved with the next rect: once the run's union has grown to the
// rect itself, the first char that lies inside the next rect starts the next
// run, even when it also lies inside the current rect.
//
// Unlike FPDFText_GetCharIndexAtPos at the rect's corner this needs no
// tolerance and cannot pick an unrelated overlapping char: the corner of a
// rect is not on the first char whenever a later char in the rect is taller,
// and the position lookup returns the first char in page order whose box
// contains the point, whichever text object it belongs to.
func (e *charIndex) firstChars(rects []pdfRect) []int {
	result := make([]int, len(rects))
	cursor := 0
	prevFirst := -1
	for ri := range rects {
		r := normalizeRect(rects[ri])
		var next *pdfRect
		if ri+1 < len(rects) {
			n := normalizeRect(rects[ri+1])
			next = &n
		}

		first := e.scanRect(cursor, r)
		if first < 0 && cursor > prevFirst+1 {
			// The previous run swallowed this rect's chars, which happens
			// when this rect lies geometrically inside the previous one.
			// Re-scan the swallowed range.
			first = e.scanRect(prevFirst+1, r)
		}
		result[ri] = first
		if first < 0 {
			continue
		}

		// Consume the run: chars that are degenerate (generated) or inside
		// this rect. The union of the run's boxes grows towards the rect; once
		// it equals the rect, a char inside the next rect belongs to it.
		ul, ut, ur, ub := e.nl[first], e.nt[first], e.nr[first], e.nb[first]
		cursor = first + 1
		for cursor < len(e.chars) {
			if e.degenerate(cursor) {
				cursor++
				continue
			}
			if !e.contained(cursor, r) {
				break
			}
			if next != nil && ul == r.Left && ut == r.Top && ur == r.Right && ub == r.Bottom && e.contained(cursor, *next) {
				break
			}
			ul, ut = min32(ul, e.nl[cursor]), max32(ut, e.nt[cursor])
			ur, ub = max32(ur, e.nr[cursor]), min32(ub, e.nb[cursor])
			cursor++
		}
		prevFirst = first
	}
	return result
}

func normalizeRect(r pdfRect) pdfRect {
	if r.Left > r.Right {
		r.Left, r.Right = r.Right, r.Left
	}
	if r.Bottom > r.Top {
		r.Top, r.Bottom = r.Bottom, r.Top
	}
	return r
}

func (e *charIndex) scanRect(from int, r pdfRect) int {
	for i := from; i < len(e.chars); i++ {
		if e.degenerate(i) {
			continue
		}
		if e.contained(i, r) {
			return i
		}
	}
	return -1
}

func (e *charIndex) degenerate(i int) bool {
	return e.nr[i]-e.nl[i] < sizeEpsilon || e.nt[i]-e.nb[i] < sizeEpsilon
}

// contained reports whether the normalized box of char i lies within the
// normalized rect. The rect is a float32 union of exactly these boxes, so the
// comparison is exact, like PDFium's own min/max.
func (e *charIndex) contained(i int, r pdfRect) bool {
	return e.nl[i] >= r.Left && e.nr[i] <= r.Right && e.nb[i] >= r.Bottom && e.nt[i] <= r.Top
}

func max32(a, b float32) float32 {
	if a > b {
		return a
	}
	return b
}

func min32(a, b float32) float32 {
	if a < b {
		return a
	}
	return b
}
