package sites

import (
	"fmt"
	"net/http"
	"sync"
)

// Pricing is a pricing page whose price a test changes between reads. Its
// banner changes on every request: page chrome, which change tracking
// does not count.
type Pricing struct {
	mu           sync.Mutex
	euros, reads int
}

// NewPricing is a pricing page at a price.
func NewPricing(euros int) *Pricing { return &Pricing{euros: euros} }

// Set changes the price the next reads see.
func (p *Pricing) Set(euros int) {
	p.mu.Lock()
	p.euros = euros
	p.mu.Unlock()
}

func (p *Pricing) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	p.mu.Lock()
	p.reads++
	euros, reads := p.euros, p.reads
	p.mu.Unlock()
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, `<html><head><title>Pricing</title></head><body><div class="banner">Visitors: %d</div><main><article><h1>Pricing</h1>`+
		`<p>Our plans are billed monthly and can be cancelled at any time, with no fees at all.</p>`+
		`<p>Basic costs %d euros a month and includes ten projects and weekly backups.</p></article></main></body></html>`, reads*7, euros)
}
