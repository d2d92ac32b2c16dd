package app

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"go.uber.org/dig"
	"go.uber.org/fx"

	"github.com/trawlhq/trawl/adapters/clock"
	"github.com/trawlhq/trawl/adapters/payment"
	"github.com/trawlhq/trawl/core/account"
	"github.com/trawlhq/trawl/core/auth"
	"github.com/trawlhq/trawl/core/billing"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/core/service"
	"github.com/trawlhq/trawl/ports"
)

// command is one trawl subcommand: its synopsis, what it does, and the flags
// it takes. A flag a command does not take is a usage error.
type command struct {
	name     string // "tokens create"
	synopsis string // the arguments after the name
	summary  string
	flags    func(fs *flag.FlagSet, o *options)
	required []string // flags that must be given
	// arg names the one positional argument the command takes ("URL"); "" for none.
	arg string
}

// options holds every flag value; each command registers only its own.
type options struct {
	cfg               Config
	email, name, plan string
	json, rotate      bool
	id, credits       int64
	resolve           multiFlag
	// The API client commands.
	arg, format, engine, file, callback string
	limit                               int
	wait, mailResults                   bool
	// api crawl
	depth            int
	include, exclude multiFlag
	scope            string
	// The page cache and change tracking (api content, serp, bulk, crawl).
	maxAge           int
	noStore, changes bool
	tag              string
	// api monitors create
	urls            multiFlag
	crawl, schedule string
	allPages        bool
}

func storeFlags(fs *flag.FlagSet, o *options) {
	fs.StringVar(&o.cfg.DatabaseURL, "database", o.cfg.DatabaseURL, "PostgreSQL URL (postgres://...); default: TRAWL_DATABASE_URL, else SQLite in the data dir")
	fs.StringVar(&o.cfg.DataDir, "data-dir", o.cfg.DataDir, "directory of the embedded store and local files; default: TRAWL_DATA_DIR, else ./trawl-data")
}

func emailFlag(fs *flag.FlagSet, o *options) {
	fs.StringVar(&o.email, "email", "", "the account's email")
}

func jsonFlag(fs *flag.FlagSet, o *options) { fs.BoolVar(&o.json, "json", false, "print JSON") }

// cacheFlags are the page cache's flags.
func cacheFlags(fs *flag.FlagSet, o *options) {
	fs.IntVar(&o.maxAge, "max-age", 0, "accept a cached answer up to this many seconds old, 0 to 2592000 (default 0: fetch)")
	fs.BoolVar(&o.noStore, "no-store", false, "keep what is fetched out of the page cache")
}

// changeFlags are change tracking's flags.
func changeFlags(fs *flag.FlagSet, o *options) {
	fs.BoolVar(&o.changes, "changes", false, "compare with the previous read of the page by this account (new, same, changed)")
	fs.StringVar(&o.tag, "tag", "", "keep this comparison's snapshots apart under a label (at most 100 characters)")
}

func flagsOf(parts ...func(*flag.FlagSet, *options)) func(*flag.FlagSet, *options) {
	return func(fs *flag.FlagSet, o *options) {
		for _, p := range parts {
			p(fs, o)
		}
	}
}

var commands = []command{
	{name: "serve", synopsis: "[--addr 127.0.0.1:8080] [--data-dir ./trawl-data] [--database URL] [--resolve host:port=ip:port]...",
		summary: "Start the API server. On an empty store it creates local@localhost and prints its token once.",
		flags: flagsOf(storeFlags, func(fs *flag.FlagSet, o *options) {
			fs.StringVar(&o.cfg.Addr, "addr", o.cfg.Addr, "listen address; default: TRAWL_ADDR, else 127.0.0.1:8080")
			fs.Var(&o.resolve, "resolve", "send fetches for host:port to ip:port instead, repeatable; default: TRAWL_FETCH_RESOLVE")
		})},
	{name: "migrate", synopsis: "[--database URL | --data-dir DIR]",
		summary: "Apply the embedded database migrations (serve applies them too).",
		flags:   storeFlags},
	{name: "accounts create", synopsis: "--email E [--name N] [--plan " + strings.Join(billing.DefaultPlans().Names(), "|") + "] [--json]",
		summary: "Create an account (on the " + billing.DefaultPlans().Must(billing.DefaultPlanName).DisplayName + " plan unless --plan says otherwise).",
		flags: flagsOf(storeFlags, emailFlag, jsonFlag, func(fs *flag.FlagSet, o *options) {
			fs.StringVar(&o.name, "name", "", "the account's display name")
			fs.StringVar(&o.plan, "plan", "", "plan: one of the plan table (TRAWL_PLANS_FILE; by default "+strings.Join(billing.DefaultPlans().Names(), ", ")+"); default "+billing.DefaultPlanName)
		}), required: []string{"email"}},
	{name: "accounts list", synopsis: "[--json]", summary: "List the accounts.", flags: flagsOf(storeFlags, jsonFlag)},
	{name: "accounts set-plan", synopsis: "--email E --plan P",
		summary: "Move an account to another plan.",
		flags: flagsOf(storeFlags, emailFlag, func(fs *flag.FlagSet, o *options) {
			fs.StringVar(&o.plan, "plan", "", "plan: one of the plan table (TRAWL_PLANS_FILE; by default "+strings.Join(billing.DefaultPlans().Names(), ", ")+")")
		}), required: []string{"email", "plan"}},
	{name: "tokens create", synopsis: "--email E [--name N] [--json]",
		summary: "Create an API token for an account and print its secret once.",
		flags: flagsOf(storeFlags, emailFlag, jsonFlag, func(fs *flag.FlagSet, o *options) {
			fs.StringVar(&o.name, "name", "", "the token's name")
		}), required: []string{"email"}},
	{name: "tokens list", synopsis: "--email E [--json]",
		summary: "List an account's tokens (never their secrets).",
		flags:   flagsOf(storeFlags, emailFlag, jsonFlag), required: []string{"email"}},
	{name: "tokens delete", synopsis: "--email E --id ID",
		summary: "Delete a token; it stops working at once.",
		flags: flagsOf(storeFlags, emailFlag, func(fs *flag.FlagSet, o *options) {
			fs.Int64Var(&o.id, "id", 0, "the token's id (from tokens list)")
		}), required: []string{"email", "id"}},
	{name: "credits grant", synopsis: "--email E --credits N",
		summary: "Add top-up credits to an account, recorded as a transaction.",
		flags: flagsOf(storeFlags, emailFlag, func(fs *flag.FlagSet, o *options) {
			fs.Int64Var(&o.credits, "credits", 0, "number of credits to grant")
		}), required: []string{"email", "credits"}},
	{name: "webhooks secret", synopsis: "--email E [--rotate]",
		summary: "Show (creating it once) or replace an account's webhook signing secret.",
		flags: flagsOf(storeFlags, emailFlag, func(fs *flag.FlagSet, o *options) {
			fs.BoolVar(&o.rotate, "rotate", false, "replace the secret with a new one")
		}), required: []string{"email"}},
	{name: "api content", synopsis: "URL [--format markdown|html|json] [--max-age S] [--no-store] [--changes] [--tag T]", arg: "URL",
		summary: "Print a page's main content through the Trawl API (" + creditsText(billing.Cost(billing.Content)) + "): Markdown by default, the clean HTML, or the whole JSON answer.",
		flags: flagsOf(cacheFlags, changeFlags, func(fs *flag.FlagSet, o *options) {
			fs.StringVar(&o.format, "format", "markdown", "markdown, html or json")
		})},
	{name: "api map", synopsis: "URL [--limit N] [--json]", arg: "URL",
		summary: "Print a site's URLs from its sitemaps, one a line, through the Trawl API (" + creditsText(billing.Cost(billing.Map)) + "; free when none is found).",
		flags: flagsOf(jsonFlag, func(fs *flag.FlagSet, o *options) {
			fs.IntVar(&o.limit, "limit", 0, "at most this many URLs, 1 to 1000 (default 1000)")
		})},
	{name: "api serp", synopsis: "QUERY [--engine google|bing|duckduckgo] [--max-age S] [--no-store] [--json]", arg: "QUERY",
		summary: "Print web search results through the Trawl API (" + creditsText(billing.Cost(billing.Serp)) + "): position, title and link, one a line.",
		flags: flagsOf(jsonFlag, cacheFlags, func(fs *flag.FlagSet, o *options) {
			fs.StringVar(&o.engine, "engine", "", "google (default), bing or duckduckgo")
		})},
	{name: "api bulk", synopsis: "--file urls.txt [--email] [--callback URL] [--max-age S] [--no-store] [--changes] [--tag T] [--wait]",
		summary: "Submit a bulk job of the URLs in a file (one a line, # comments) through the Trawl API; with --wait, follow it to the end " +
			"(a progress bar on a terminal, a line per change otherwise).",
		flags: flagsOf(cacheFlags, changeFlags, func(fs *flag.FlagSet, o *options) {
			fs.StringVar(&o.file, "file", "", "the file of URLs")
			fs.BoolVar(&o.mailResults, "email", false, "email the results to the account")
			fs.StringVar(&o.callback, "callback", "", "a webhook URL for the results")
			fs.BoolVar(&o.wait, "wait", false, "wait until the job ends and print its counts")
		}), required: []string{"file"}},
	{name: "api crawl", synopsis: "URL [--limit N] [--depth N] [--include P]... [--exclude P]... [--scope S] [--max-age S] [--no-store] [--changes] [--tag T] [--email] [--callback URL] [--wait] [--json]", arg: "URL",
		summary: "Crawl a site from URL through the Trawl API (" + creditsText(billing.Cost(billing.Crawl)) + " per page extracted; the limit's cost is held until the end), " +
			"obeying robots.txt; with --wait, follow it to the end and print the URLs of its pages.",
		flags: flagsOf(jsonFlag, cacheFlags, changeFlags, func(fs *flag.FlagSet, o *options) {
			fs.IntVar(&o.limit, "limit", 0, "pages to extract, 1 to 10000 (default 100)")
			fs.IntVar(&o.depth, "depth", -1, "link hops from URL, 0 to 20 (default 3)")
			fs.Var(&o.include, "include", "read only paths matching this glob (or re:RE2); repeatable")
			fs.Var(&o.exclude, "exclude", "skip paths matching this glob (or re:RE2); repeatable, wins over --include")
			fs.StringVar(&o.scope, "scope", "", "host (default), domain or subdomains")
			fs.BoolVar(&o.mailResults, "email", false, "email a ZIP of the pages to the account at the end")
			fs.StringVar(&o.callback, "callback", "", "a webhook URL for the crawl's events")
			fs.BoolVar(&o.wait, "wait", false, "wait until the crawl ends, then print its pages' URLs")
		})},
	{name: "api monitors create", synopsis: "(--url URL... | --crawl URL [--limit N]) --schedule CRON [--name N] [--callback URL] [--email] [--all-pages] [--json]",
		summary: "Watch pages for changes through the Trawl API (free; each check costs " + creditsText(billing.Cost(billing.Content)) + " per page read): " +
			"on the cron schedule (at most every 5 minutes), each check compares the pages with the previous one and reports to the webhook and/or by email.",
		flags: flagsOf(jsonFlag, func(fs *flag.FlagSet, o *options) {
			fs.Var(&o.urls, "url", "a page to watch; repeatable, 1 to 100")
			fs.StringVar(&o.crawl, "crawl", "", "watch a crawl from this start URL instead of --url pages")
			fs.IntVar(&o.limit, "limit", 0, "with --crawl: pages to read at each check, 1 to 10000 (default 100)")
			fs.StringVar(&o.schedule, "schedule", "", "five-field cron, UTC unless it starts with CRON_TZ= (e.g. \"0 */6 * * *\", @daily)")
			fs.StringVar(&o.name, "name", "", "the monitor's name")
			fs.StringVar(&o.callback, "callback", "", "a webhook URL for each check's report")
			fs.BoolVar(&o.mailResults, "email", false, "email each report to the account")
			fs.BoolVar(&o.allPages, "all-pages", false, "report every page at every check, not only changes")
		}), required: []string{"schedule"}},
	{name: "api monitors list", synopsis: "[--json]", summary: "Print the account's monitors through the Trawl API (free): id, state, next check and schedule, one a line.", flags: jsonFlag},
	{name: "api monitors get", synopsis: "ID [--json]", arg: "ID", summary: "Print a monitor and its latest checks through the Trawl API (free).", flags: jsonFlag},
	{name: "api monitors pause", synopsis: "ID", arg: "ID", summary: "Pause a monitor: it takes no check until resumed (free).", flags: func(*flag.FlagSet, *options) {}},
	{name: "api monitors resume", synopsis: "ID", arg: "ID", summary: "Resume a paused monitor: its next check is its schedule's first time from now (free).", flags: func(*flag.FlagSet, *options) {}},
	{name: "api monitors delete", synopsis: "ID", arg: "ID", summary: "Delete a monitor and its checks (free).", flags: func(*flag.FlagSet, *options) {}},
	{name: "api credits", synopsis: "[--json]", summary: "Print the account's balance through the Trawl API (free).", flags: jsonFlag},
	{name: "mcp", summary: "Serve Trawl's MCP tools over stdio for a desktop agent. The tools call the Trawl API at " +
		"TRAWL_API_URL (default " + DefaultAPIURL + ") with the token in TRAWL_API_KEY.", flags: func(*flag.FlagSet, *options) {}},
	{name: "version", summary: "Print the version of this binary.", flags: func(*flag.FlagSet, *options) {}},
}

// DefaultAPIURL is the API the client commands (api, mcp) reach without
// TRAWL_API_URL.
const DefaultAPIURL = "http://127.0.0.1:8080"

// creditsText is a cost from the billing table as help text prints it.
func creditsText(n int64) string {
	if n == 1 {
		return "1 credit"
	}
	return billing.FormatCredits(n) + " credits"
}

// flagArg names each valued flag's argument in help, as in the synopses.
var flagArg = map[string]string{
	"database": "URL", "data-dir": "DIR", "addr": "HOST:PORT", "resolve": "HOST:PORT=IP:PORT",
	"email": "E", "name": "N", "plan": "P", "id": "ID", "credits": "N",
	"format": "F", "limit": "N", "engine": "E", "file": "FILE", "callback": "URL",
	"depth": "N", "include": "P", "exclude": "P", "scope": "S", "max-age": "S", "tag": "T", "url": "URL", "crawl": "URL", "schedule": "CRON",
}

// isBoolFlag reports whether f is a switch, given without a value.
func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

func findCommand(name string) (command, bool) {
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// isGroup reports whether word starts two-word commands ("tokens").
func isGroup(word string) bool {
	for _, c := range commands {
		if strings.HasPrefix(c.name, word+" ") {
			return true
		}
	}
	return false
}

// usage is the top-level help; only commands starting with prefix when
// prefix is not empty.
func usage(prefix string) string {
	var b strings.Builder
	if prefix == "" {
		b.WriteString("trawl: the Trawl web data API server and its admin commands\n\n")
	}
	b.WriteString("Usage:\n")
	tw := tabwriter.NewWriter(&b, 0, 4, 1, ' ', 0)
	for _, c := range commands {
		if prefix == "" || strings.HasPrefix(c.name, prefix+" ") {
			fmt.Fprintf(tw, "  trawl %s\t%s\n", c.name, c.synopsis)
		}
	}
	_ = tw.Flush()
	lines := strings.Split(b.String(), "\n")
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " ")
	}
	b.Reset()
	b.WriteString(strings.Join(lines, "\n"))
	switch prefix {
	case "api":
		b.WriteString(`
The api commands call a running Trawl server: TRAWL_API_URL (default
` + DefaultAPIURL + `) with the token in TRAWL_API_KEY. "trawl api <command> --help"
shows a command's flags.
`)
	case "":
		b.WriteString(`
serve and the admin commands (migrate, accounts, tokens, credits, webhooks) take
--database/--data-dir; the admin commands work while the server runs. Without
--database the store is SQLite at <data-dir>/trawl.db. The api commands and mcp
call a running server: TRAWL_API_URL (default ` + DefaultAPIURL + `) with the
token in TRAWL_API_KEY. "trawl <command> --help" shows a command's flags.
`)
	default:
		b.WriteString(`
These commands take --database/--data-dir like serve and work while the server
runs. Without --database the store is SQLite at <data-dir>/trawl.db.
"trawl ` + prefix + ` <command> --help" shows a command's flags.
`)
	}
	return b.String()
}

// help is a command's own help: synopsis, summary and flags.
func (c command) help(fs *flag.FlagSet) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Usage: %s\n\n%s\n", strings.TrimSpace("trawl "+c.name+" "+c.synopsis), c.summary)
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	if n == 0 {
		b.WriteString("\nIt takes no flags.\n")
		return b.String()
	}
	b.WriteString("\nFlags:\n")
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fs.VisitAll(func(f *flag.Flag) {
		text := f.Usage
		if slices.Contains(c.required, f.Name) {
			text += " (required)"
		}
		arg := flagArg[f.Name]
		if isBoolFlag(f) {
			arg = ""
		}
		fmt.Fprintf(tw, "  %s\t%s\n", strings.TrimSpace("--"+f.Name+" "+arg), text)
	})
	_ = tw.Flush()
	return b.String()
}

// CLI runs the command line. Exit codes: 0 ok, 1 failure (for the api
// commands: the API could not complete the call, or could not be reached),
// 2 usage, 3 the API refused the request (401, 402, 404, 422, 429).
type CLI struct {
	// Stdin feeds trawl mcp; nil means os.Stdin.
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	// Signals ends serve; nil means SIGINT and SIGTERM.
	Signals context.Context
	// Client runs the commands that are clients of a Trawl API (trawl api
	// ..., trawl mcp); the binary provides them (app/clientcmd), so this
	// package does not depend on the Go client.
	Client ClientCommands
	// MCP serves the MCP tools at /mcp on serve's port; nil: no /mcp.
	MCP MCPMount
}

// ClientCommands runs the client commands.
type ClientCommands interface {
	Run(ctx context.Context, name string, a ClientArgs, io ClientIO) error
}

// ClientArgs are the client commands' arguments and flags.
type ClientArgs struct {
	Arg, Format, Engine, File, Callback string
	Limit                               int
	JSON, Wait, Email                   bool
	// api crawl: Depth is -1 when not given.
	Depth            int
	Include, Exclude []string
	Scope            string
	// The page cache (--max-age seconds, --no-store) and change tracking
	// (--changes, --tag).
	MaxAge           int
	NoStore, Changes bool
	Tag              string
	// api monitors create: the pages (or a crawl's start URL), the
	// schedule, the monitor's name, and whether every page is reported.
	URLs                  []string
	Crawl, Schedule, Name string
	AllPages              bool
}

// ClientIO is what a client command reads and writes.
type ClientIO struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string
}

// UsageError marks a usage error of a client command (exit code 2).
func UsageError(err error) error { return usageError{err} }

// RefusedError marks a request the API refused (exit code 3).
func RefusedError(err error) error { return apiRefused{err} }

// apiRefused is an API answer the caller can fix (a 4xx): exit code 3.
type apiRefused struct{ error }

// Main runs args (without the program name) and returns the exit code.
func (c CLI) Main(args []string) int {
	if c.Getenv == nil {
		c.Getenv = os.Getenv
	}
	if len(args) == 0 {
		fmt.Fprint(c.Stderr, usage(""))
		return 2
	}
	switch args[0] {
	case "help", "--help", "-help", "-h":
		if len(args) == 1 {
			fmt.Fprint(c.Stdout, usage(""))
			return 0
		}
		// "trawl help tokens create" is "trawl tokens create --help".
		return c.Main(append(args[1:len(args):len(args)], "--help"))
	case "--version", "-version", "-v":
		args = append([]string{"version"}, args[1:]...)
	}
	name, rest := args[0], args[1:]
	for isGroup(name) { // "api", then "api monitors"
		if len(rest) == 0 || strings.HasPrefix(rest[0], "-") {
			if len(rest) > 0 && isHelp(rest[0]) {
				fmt.Fprint(c.Stdout, usage(name))
				return 0
			}
			fmt.Fprintf(c.Stderr, "trawl: %s needs a command\n\n%s", name, usage(name))
			return 2
		}
		name, rest = name+" "+rest[0], rest[1:]
	}
	cmd, ok := findCommand(name)
	if !ok {
		group, _, _ := strings.Cut(name, " ")
		if !isGroup(group) {
			group = ""
		}
		fmt.Fprintf(c.Stderr, "trawl: unknown command %q\n\n%s", name, usage(group))
		return 2
	}
	err := c.run(cmd, rest)
	var ue usageError
	var ce configError
	var refused apiRefused
	switch {
	case err == nil || errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		what := "its flags"
		if !cmd.takesFlags() {
			what = "what it needs"
		}
		fmt.Fprintf(c.Stderr, "trawl %s: %v\nRun \"trawl %s --help\" for %s.\n", cmd.name, ue.error, cmd.name, what)
		return 2
	case errors.As(err, &ce):
		fmt.Fprintf(c.Stderr, "trawl %s: %v\n", cmd.name, ce.error)
		return 2
	case errors.As(err, &refused):
		fmt.Fprintf(c.Stderr, "trawl: %v\n", refused.error)
		return 3
	default:
		fmt.Fprintf(c.Stderr, "trawl: %v\n", describe(err))
		return 1
	}
}

func isHelp(arg string) bool {
	return arg == "-h" || arg == "-help" || arg == "--help" || arg == "--h"
}

type usageError struct{ error }

// configError is a setting, from a flag or the environment, that stops the
// server before it starts: one line naming it, exit code 2.
type configError struct{ error }

// takesFlags reports whether the command has flags of its own.
func (c command) takesFlags() bool {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	c.flags(fs, &options{})
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n > 0
}

// describe turns an error into an operator-facing sentence.
func describe(err error) string { return failure.Public(err, err.Error()) }

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// run parses a command's own flags (over the TRAWL_* environment) and runs it.
func (c CLI) run(cmd command, args []string) error {
	cfg, envErr := DefaultConfig().FromEnv(c.Getenv)
	o := &options{cfg: cfg}
	fs := flag.NewFlagSet(cmd.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	cmd.flags(fs, o)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(c.Stdout, cmd.help(fs))
			return err
		}
		return usageError{flagError(cmd, fs, err)}
	}
	if cmd.arg != "" {
		// One positional argument, before or among the flags.
		if fs.NArg() == 0 {
			return usageError{fmt.Errorf("needs %s", cmd.arg)}
		}
		o.arg = fs.Arg(0)
		if err := fs.Parse(fs.Args()[1:]); err != nil {
			return usageError{flagError(cmd, fs, err)}
		}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("unexpected argument %q", fs.Arg(0))}
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	for _, r := range cmd.required {
		if v := strings.TrimSpace(fs.Lookup(r).Value.String()); !given[r] || v == "" || v == "0" {
			return usageError{fmt.Errorf("needs --%s", r)}
		}
	}
	if envErr != nil {
		return envErr
	}
	switch cmd.name {
	case "serve":
		return c.serve(o)
	case "migrate":
		return c.migrate(o)
	case "version":
		fmt.Fprintf(c.Stdout, "trawl %s\n", Version)
		return nil
	case "mcp":
		return c.client(cmd.name, o)
	}
	if strings.HasPrefix(cmd.name, "api ") {
		return c.client(cmd.name, o)
	}
	return c.admin(cmd.name, o)
}

// flagError restates the flag package's parse errors with the command's
// own flags, so a flag meant for another command is named as such.
func flagError(cmd command, fs *flag.FlagSet, err error) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		var own []string
		fs.VisitAll(func(f *flag.Flag) { own = append(own, "--"+f.Name) })
		name = "--" + strings.TrimLeft(name, "-")
		if len(own) == 0 {
			return fmt.Errorf("unknown flag %s: this command takes no flags", name)
		}
		return fmt.Errorf("unknown flag %s: this command takes %s", name, strings.Join(own, ", "))
	}
	for _, p := range []string{"for flag -", "needs an argument: -"} {
		msg = strings.Replace(msg, p, p+"-", 1)
	}
	return errors.New(msg)
}

func (c CLI) serve(o *options) error {
	cfg := &o.cfg
	if len(o.resolve) > 0 {
		cfg.Resolve = o.resolve
	}
	if err := cfg.Validate(); err != nil {
		return configError{err}
	}
	log := NewLogger(*cfg, c.Stderr)
	ctx := c.Signals
	if ctx == nil {
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
	}
	// Bind first: a busy address fails before the store is touched, so no
	// bootstrap token is printed for a server that never starts.
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return fmt.Errorf("cannot listen on %s: the address is in use by another process (choose another with --addr or TRAWL_ADDR)", cfg.Addr)
		}
		return fmt.Errorf("cannot listen on %s: %w", cfg.Addr, err)
	}
	defer ln.Close()
	if cfg.DatabaseURL == "" {
		release, err := lockDataDir(cfg.DataDir)
		if err != nil {
			return err
		}
		defer release()
	} else if file := sqliteFileOf(cfg.DatabaseURL); file != "" {
		release, err := lockSQLiteFile(file)
		if err != nil {
			return err
		}
		defer release()
	}
	if cfg.Bootstrap {
		if err := c.bootstrap(ctx, *cfg); err != nil {
			return err
		}
	}
	app := fx.New(ServerOptions(*cfg, log, ln, Extensions{MCP: c.MCP}))
	if err := app.Err(); err != nil {
		return startupError(err)
	}
	startCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := app.Start(startCtx); err != nil {
		return startupError(err)
	}
	// Starting leaves tens of MB of garbage (the migrations parsed, the
	// first account's password hashed): hand it back now, not when the
	// scavenger gets to it, so a node at rest holds what it uses.
	debug.FreeOSMemory()
	<-ctx.Done()
	stopCtx, cancelStop := context.WithTimeout(context.Background(), cfg.Shutdown)
	defer cancelStop()
	return app.Stop(stopCtx)
}

// startupError is an error of building or starting the server as the
// operator should read it: the cause alone, without the chain of
// constructors the dependency injection wraps around it.
func startupError(err error) error { return dig.RootCause(err) }

// BootstrapEmail is the account created on the first start of an empty store.
const BootstrapEmail = auth.BootstrapEmail

// bootstrap creates the local account with one token the first time the
// server starts on an empty store (auth.Bootstrap), and prints the token once.
func (c CLI) bootstrap(ctx context.Context, cfg Config) error {
	env, err := openEnv(ctx, cfg)
	if err != nil {
		return err
	}
	defer env.close()
	b, created, err := env.svc.Auth.Bootstrap(ctx)
	if err != nil || !created {
		return err
	}
	tok := b.Token
	base := cfg.PublicBase()
	pwLink, err := account.PasswordLink(ctx, env.store.Credentials, clock.System{}.Now(), base, b.Account.ID)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.Stdout, `
Trawl: a new store. Created the account %s (%s plan, %s credits a month)
and one API token. It is shown this once and cannot be recovered:

    %s

Try it:
    B=%s
    T=%s
    curl -H "Authorization: Bearer $T" $B/v1/credits

Create more with: trawl tokens create --email %s

Dashboard:     %s/dashboard/
    Choose %s's password with this link (it works once, for %d hours):
    %s
API reference: %s/docs

`, b.Account.Email, b.Plan.DisplayName, billing.FormatCredits(b.Plan.MonthlyCredits), tok.Secret, base, tok.Secret, b.Account.Email,
		base, b.Account.Email, account.PasswordLinkTTL/time.Hour, pwLink, base)
	return nil
}

// env is what the admin commands and the bootstrap use: the store, accounts
// and tokens, credits, and webhook secrets. It opens no outbound adapter, so an admin command
// writes nothing to the data dir (no link-signing key, no outbox) and, with
// --database, touches no local directory at all.
type env struct {
	store Store
	svc   *service.Services
}

func (e env) close() { e.store.Close() }

func openEnv(ctx context.Context, cfg Config) (env, error) {
	store, err := OpenStore(ctx, cfg)
	if err != nil {
		return env{}, err
	}
	e := env{store: store}
	clk := clock.System{}
	pay, err := payment.NewLocal(store.Ledger, clk, cfg.PublicBase())
	if err == nil {
		e.svc, err = service.New(store.Stores, service.Outbound{Clock: clk, Payments: pay}, cfg.ServiceOptions())
	}
	if err != nil {
		store.Close()
		return env{}, err
	}
	return e, nil
}

func (c CLI) migrate(o *options) error {
	store, err := OpenStore(context.Background(), o.cfg)
	if err != nil {
		return err
	}
	defer store.Close()
	fmt.Fprintf(c.Stdout, "migrations applied (%s)\n", store.Dialect)
	return nil
}

// adminCommands are the operator's commands, one function each.
var adminCommands = map[string]func(adminRun) error{
	"accounts create":   adminRun.accountsCreate,
	"accounts list":     adminRun.accountsList,
	"accounts set-plan": adminRun.accountsSetPlan,
	"tokens create":     adminRun.tokensCreate,
	"tokens list":       adminRun.tokensList,
	"tokens delete":     adminRun.tokensDelete,
	"credits grant":     adminRun.creditsGrant,
	"webhooks secret":   adminRun.webhooksSecret,
}

// adminRun is one admin command: its flags and the services of the store.
type adminRun struct {
	CLI
	ctx context.Context
	svc *service.Services
	o   *options
}

func (c CLI) admin(cmd string, o *options) error {
	ctx := context.Background()
	e, err := openEnv(ctx, o.cfg)
	if err != nil {
		return err
	}
	defer e.close()
	run, ok := adminCommands[cmd]
	if !ok {
		return usageError{fmt.Errorf("unknown command %q", cmd)}
	}
	return run(adminRun{CLI: c, ctx: ctx, svc: e.svc, o: o})
}

// account is the account --email names.
func (r adminRun) account() (ports.Account, error) {
	a, err := r.svc.Auth.AccountByEmail(r.ctx, r.o.email)
	if failure.Is(err, failure.NotFound) {
		return a, fmt.Errorf("no account with email %s", r.o.email)
	}
	return a, err
}

func (r adminRun) accountsCreate() error {
	p := r.o.plan
	if p == "" {
		p = billing.DefaultPlanName
	}
	a, err := r.svc.Auth.CreateAccount(r.ctx, r.o.email, r.o.name, p)
	if err != nil {
		return err
	}
	if r.o.json {
		return r.json(accountOut(a))
	}
	fmt.Fprintf(r.Stdout, "created account %d %s (%s)\n", a.ID, a.Email, r.svc.Auth.Plans().Must(a.Plan).DisplayName)
	return nil
}

func (r adminRun) accountsList() error {
	list, err := r.svc.Auth.ListAccounts(r.ctx)
	if err != nil {
		return err
	}
	if r.o.json {
		out := make([]map[string]any, len(list))
		for i, a := range list {
			out[i] = accountOut(a)
		}
		return r.json(out)
	}
	tw := tabwriter.NewWriter(r.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tEMAIL\tNAME\tPLAN\tCREATED")
	for _, a := range list {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", a.ID, a.Email, a.Name, r.svc.Auth.Plans().Must(a.Plan).DisplayName, a.CreatedAt.Format(time.RFC3339))
	}
	return tw.Flush()
}

func (r adminRun) accountsSetPlan() error {
	a, err := r.account()
	if err != nil {
		return err
	}
	if err := r.svc.Credits.SetPlan(r.ctx, a.ID, r.o.plan); err != nil {
		return err
	}
	fmt.Fprintf(r.Stdout, "%s is on the %s plan\n", a.Email, r.svc.Auth.Plans().Must(r.o.plan).DisplayName)
	return nil
}

func (r adminRun) tokensCreate() error {
	a, err := r.account()
	if err != nil {
		return err
	}
	t, err := r.svc.Auth.CreateToken(r.ctx, a.ID, r.o.name)
	if err != nil {
		return err
	}
	if r.o.json {
		return r.json(map[string]any{"id": t.Token.ID, "name": t.Token.Name, "token": t.Secret, "preview": t.Token.Preview})
	}
	fmt.Fprintf(r.Stdout, "token %d (%s) for %s. It is shown this once:\n\n    %s\n\n", t.Token.ID, t.Token.Name, a.Email, t.Secret)
	return nil
}

func (r adminRun) tokensList() error {
	a, err := r.account()
	if err != nil {
		return err
	}
	list, err := r.svc.Auth.ListTokens(r.ctx, a.ID)
	if err != nil {
		return err
	}
	if r.o.json {
		out := make([]map[string]any, len(list))
		for i, t := range list {
			var last any
			if t.LastUsedAt != nil {
				last = t.LastUsedAt.Format(time.RFC3339)
			}
			out[i] = map[string]any{"id": t.ID, "name": t.Name, "preview": t.Preview, "last_used_at": last, "created_at": t.CreatedAt.Format(time.RFC3339)}
		}
		return r.json(out)
	}
	tw := tabwriter.NewWriter(r.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tPREVIEW\tLAST USED\tCREATED")
	for _, t := range list {
		last := "never"
		if t.LastUsedAt != nil {
			last = t.LastUsedAt.Format(time.RFC3339)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", t.ID, t.Name, t.Preview, last, t.CreatedAt.Format(time.RFC3339))
	}
	return tw.Flush()
}

func (r adminRun) tokensDelete() error {
	a, err := r.account()
	if err != nil {
		return err
	}
	if err := r.svc.Auth.DeleteToken(r.ctx, a.ID, r.o.id); err != nil {
		if failure.Is(err, failure.NotFound) {
			return fmt.Errorf("%s has no token %d", a.Email, r.o.id)
		}
		return err
	}
	fmt.Fprintf(r.Stdout, "token %d deleted\n", r.o.id)
	return nil
}

func (r adminRun) creditsGrant() error {
	a, err := r.account()
	if err != nil {
		return err
	}
	if err := r.svc.Credits.Grant(r.ctx, a.ID, r.o.credits); err != nil {
		return err
	}
	fmt.Fprintf(r.Stdout, "granted %s credits to %s\n", billing.FormatCredits(r.o.credits), a.Email)
	return nil
}

func (r adminRun) webhooksSecret() error {
	a, err := r.account()
	if err != nil {
		return err
	}
	show := r.svc.Secrets.Show
	if r.o.rotate {
		show = r.svc.Secrets.Rotate
	}
	secret, err := show(r.ctx, a.ID)
	if err != nil {
		return err
	}
	fmt.Fprintln(r.Stdout, secret)
	return nil
}

func accountOut(a ports.Account) map[string]any {
	return map[string]any{"id": a.ID, "email": a.Email, "name": a.Name, "plan": billing.PlanLabel(a.Plan), "created_at": a.CreatedAt.Format(time.RFC3339)}
}

func (c CLI) json(v any) error {
	enc := json.NewEncoder(c.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// client runs a client command through the binary's implementation.
func (c CLI) client(name string, o *options) error {
	if c.Client == nil {
		return errors.New("this build has no client commands")
	}
	ctx := c.Signals
	if ctx == nil {
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
	}
	return c.Client.Run(ctx, name, ClientArgs{Arg: o.arg, Format: o.format, Engine: o.engine, File: o.file, Callback: o.callback,
		Limit: o.limit, JSON: o.json, Wait: o.wait, Email: o.mailResults, Depth: o.depth, Include: o.include, Exclude: o.exclude, Scope: o.scope,
		MaxAge: o.maxAge, NoStore: o.noStore, Changes: o.changes, Tag: o.tag, URLs: o.urls, Crawl: o.crawl, Schedule: o.schedule, Name: o.name, AllPages: o.allPages}, ClientIO{Stdin: c.Stdin, Stdout: c.Stdout, Stderr: c.Stderr, Getenv: c.Getenv})
}
