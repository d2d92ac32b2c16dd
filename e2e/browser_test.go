package e2e

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// browser starts headless Chromium, as a person's browser would be. Locally
// the test skips without Chromium; under CI=true it must run.
func browser(t *testing.T) context.Context {
	t.Helper()
	path := ""
	for _, p := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if found, err := exec.LookPath(p); err == nil {
			path = found
			break
		}
	}
	if path == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("no Chromium on this machine and CI=true (.ci/run installs Debian's chromium)")
		}
		t.Skip("no Chromium on this machine (apt-get install chromium)")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.Headless, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(allocCtx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 60*time.Second)
	t.Cleanup(func() { cancelTimeout(); cancelCtx(); cancelAlloc() })
	return ctx
}

// TestBrowserCheckout buys credits the way a person does: the API answers
// with a checkout URL, the page shows the amount, the Pay button completes
// the session, and the balance grows once.
func TestBrowserCheckout(t *testing.T) {
	ctx := browser(t)
	s := start(t, []string{"--data-dir", t.TempDir()})
	token := tokenRE.FindString(s.stdout.String())
	code, co := postJSON(t, s.base+"/v1/credits/purchase", token, map[string]any{"credits": 1500})
	checkout, _ := co["checkout_url"].(string)
	if code != 200 || !strings.HasPrefix(checkout, s.base+"/checkout/") {
		t.Fatalf("purchase = %d %v", code, co)
	}
	paid := chromedp.Search(`//strong[contains(., "Payment complete")]`)
	pay := chromedp.CSS(`button[type="submit"]`)
	if err := chromedp.Do(ctx, chromedp.Navigate(checkout), chromedp.WaitVisible(pay)); err != nil {
		t.Fatalf("open the checkout page: %v", err)
	}
	before := run(t, ctx, chromedp.Text(chromedp.CSS(".card")))
	button := run(t, ctx, chromedp.Text(pay))
	title := run(t, ctx, chromedp.Title())
	// The dashboard's look: its stylesheet applies, and the page leads back.
	styled := run(t, ctx, chromedp.Evaluate[bool](`getComputedStyle(document.querySelector("header.top")).display === "flex"`))
	back := run(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll('a[href^="/dashboard/"]').length`))
	if !styled || back < 2 {
		t.Fatalf("checkout page: styled %v, %d links back to the dashboard", styled, back)
	}
	if err := chromedp.Do(ctx, chromedp.Click(pay), chromedp.WaitVisible(paid)); err != nil {
		t.Fatalf("pay: %v", err)
	}
	after := run(t, ctx, chromedp.Text(chromedp.CSS(".card")))
	if !strings.Contains(before, "1,500 credits") || button != "Pay 7.50 USD" || title != "Credit top-up · Trawl" {
		t.Fatalf("checkout page showed %q, button %q, title %q", before, button, title)
	}
	if !strings.Contains(after, "1,500 credits were added") {
		t.Fatalf("after paying: %q", after)
	}
	_, cr := get(t, s.base+"/v1/credits", token)
	if cr["balance"] != float64(90000+1500) {
		t.Fatalf("balance %v, want 91500", cr["balance"])
	}
	// Reloading the paid page (or paying again from history) adds nothing.
	if err := chromedp.Do(ctx, chromedp.Navigate(checkout), chromedp.WaitVisible(paid)); err != nil {
		t.Fatal(err)
	}
	if _, cr := get(t, s.base+"/v1/credits", token); cr["balance"] != float64(91500) {
		t.Fatalf("balance after reload %v", cr["balance"])
	}

	// The API reference renders in a browser too.
	if err := chromedp.Do(ctx, chromedp.Navigate(s.base+"/docs"), chromedp.WaitVisible(chromedp.CSS("h1"))); err != nil {
		t.Fatal(err)
	}
	heading := run(t, ctx, chromedp.Text(chromedp.CSS("h1")))
	ops := run(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll(".op").length`))
	if !strings.HasPrefix(heading, "Trawl API") || ops < 20 {
		t.Fatalf("docs: heading %q, %d operations", heading, ops)
	}
	s.stop(t)
}

// run runs one browser action that returns a value.
func run[T any](t *testing.T, ctx context.Context, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatalf("browser: %v", err)
	}
	return v
}
