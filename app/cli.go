package app

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"go.uber.org/fx"

	"github.com/trawlhq/trawl/adapters/clock"
	"github.com/trawlhq/trawl/adapters/payment"
	"github.com/trawlhq/trawl/adapters/sqlstore"
	"github.com/trawlhq/trawl/core/billing"
	"github.com/trawlhq/trawl/core/bulk"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

const usage = `trawl: the Trawl web data API server and its admin commands

Usage:
  trawl serve   [--addr 127.0.0.1:8080] [--data-dir ./trawl-data] [--database URL] [--resolve host:port=ip:port]...
  trawl migrate [--database URL | --data-dir DIR]
  trawl accounts create --email E [--name N] [--plan basic|pro|business|none] [--json]
  trawl accounts list [--json]
  trawl accounts set-plan --email E --plan P
  trawl tokens create --email E [--name N] [--json]
  trawl tokens list --email E [--json]
  trawl tokens delete --email E --id ID
  trawl credits grant --email E --credits N
  trawl webhooks secret --email E [--rotate]
  trawl version

Every command takes --database/--data-dir like serve and works while the
server runs. Without --database the store is SQLite at <data-dir>/trawl.db.
`

// CLI runs the command line. Exit codes: 0 ok, 1 failure, 2 usage.
type CLI struct {
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	// Signals ends serve; nil means SIGINT and SIGTERM.
	Signals context.Context
}

// Main runs args (without the program name) and returns the exit code.
func (c CLI) Main(args []string) int {
	if c.Getenv == nil {
		c.Getenv = os.Getenv
	}
	if len(args) == 0 {
		fmt.Fprint(c.Stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "serve":
		err = c.serve(args[1:])
	case "migrate":
		err = c.migrate(args[1:])
	case "accounts", "tokens", "credits", "webhooks":
		if len(args) < 2 {
			fmt.Fprint(c.Stderr, usage)
			return 2
		}
		err = c.admin(args[0]+" "+args[1], args[2:])
	case "version", "--version", "-v":
		fmt.Fprintf(c.Stdout, "trawl %s\n", Version)
	case "help", "--help", "-h":
		fmt.Fprint(c.Stdout, usage)
	default:
		fmt.Fprintf(c.Stderr, "trawl: unknown command %q\n\n%s", args[0], usage)
		return 2
	}
	var ue usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(c.Stderr, "trawl: %v\n", err)
		return 2
	default:
		fmt.Fprintf(c.Stderr, "trawl: %v\n", describe(err))
		return 1
	}
}

type usageError struct{ error }

// describe turns an error into an operator-facing sentence.
func describe(err error) string { return failure.Public(err, err.Error()) }

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// storeFlags registers --database and --data-dir over the env-derived config.
func (c CLI) baseConfig(fs *flag.FlagSet) (*Config, error) {
	cfg, err := DefaultConfig().FromEnv(c.Getenv)
	if err != nil {
		return nil, err
	}
	fs.StringVar(&cfg.DatabaseURL, "database", cfg.DatabaseURL, "database URL (postgres://...); empty: SQLite in the data dir")
	fs.StringVar(&cfg.DataDir, "data-dir", cfg.DataDir, "directory of the embedded store and local files")
	return &cfg, nil
}

func (c CLI) parse(fs *flag.FlagSet, args []string) error {
	fs.SetOutput(c.Stderr)
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("unexpected argument %q", fs.Arg(0))}
	}
	return nil
}

func (c CLI) serve(args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	cfg, err := c.baseConfig(fs)
	if err != nil {
		return err
	}
	fs.StringVar(&cfg.Addr, "addr", cfg.Addr, "listen address")
	var resolve multiFlag
	fs.Var(&resolve, "resolve", "host:port=ip:port fetch override (repeatable)")
	if err := c.parse(fs, args); err != nil {
		return err
	}
	if len(resolve) > 0 {
		cfg.Resolve = resolve
	}
	if err := cfg.Validate(); err != nil {
		return usageError{err}
	}
	log := NewLogger(*cfg, c.Stderr)
	ctx := c.Signals
	if ctx == nil {
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
	}
	if cfg.Bootstrap {
		if err := c.bootstrap(ctx, *cfg); err != nil {
			return err
		}
	}
	app := fx.New(ServerOptions(*cfg, log))
	if err := app.Err(); err != nil {
		return err
	}
	startCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := app.Start(startCtx); err != nil {
		return err
	}
	<-ctx.Done()
	stopCtx, cancelStop := context.WithTimeout(context.Background(), cfg.Shutdown)
	defer cancelStop()
	return app.Stop(stopCtx)
}

// BootstrapEmail is the account created on the first start of an empty store.
const BootstrapEmail = "local@localhost"

// bootstrap creates local@localhost on the Business plan with one token the
// first time the server starts on an empty store, and prints the token once.
func (c CLI) bootstrap(ctx context.Context, cfg Config) error {
	env, err := openEnv(ctx, cfg)
	if err != nil {
		return err
	}
	defer env.close()
	n, err := env.store.CountAccounts(ctx)
	if err != nil || n > 0 {
		return err
	}
	acct, err := env.svc.Auth.CreateAccount(ctx, BootstrapEmail, "Local", "business")
	if failure.Is(err, failure.Conflict) {
		return nil // another process bootstrapped first
	}
	if err != nil {
		return err
	}
	tok, err := env.svc.Auth.CreateToken(ctx, acct.ID, "bootstrap")
	if err != nil {
		return err
	}
	base := cfg.PublicBase()
	fmt.Fprintf(c.Stdout, `
Trawl: a new store. Created the account %s (Business plan, 90,000 credits a month)
and one API token. It is shown this once and cannot be recovered:

    %s

Try it:
    curl -H "Authorization: Bearer %s" %s/v1/credits

Create more with: trawl tokens create --email %s

`, BootstrapEmail, tok.Secret, tok.Secret, base, BootstrapEmail)
	return nil
}

type env struct {
	store *sqlstore.Store
	svc   Services
}

func (e env) close() { e.store.Close() }

func openEnv(ctx context.Context, cfg Config) (env, error) {
	store, err := OpenStore(ctx, cfg)
	if err != nil {
		return env{}, err
	}
	clk := clock.System{}
	pay, err := payment.NewLocal(store, clk, cfg.PublicBase())
	if err != nil {
		store.Close()
		return env{}, err
	}
	out, err := NewOutbound(cfg)
	if err != nil {
		store.Close()
		return env{}, err
	}
	svc, err := NewServices(cfg, store, clk, pay, out, NewLogger(cfg, io.Discard))
	if err != nil {
		store.Close()
		return env{}, err
	}
	return env{store: store, svc: svc}, nil
}

func (c CLI) migrate(args []string) error {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	cfg, err := c.baseConfig(fs)
	if err != nil {
		return err
	}
	if err := c.parse(fs, args); err != nil {
		return err
	}
	store, err := OpenStore(context.Background(), *cfg)
	if err != nil {
		return err
	}
	defer store.Close()
	fmt.Fprintf(c.Stdout, "migrations applied (%s)\n", store.Dialect())
	return nil
}

func (c CLI) admin(cmd string, args []string) error {
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	cfg, err := c.baseConfig(fs)
	if err != nil {
		return err
	}
	email := fs.String("email", "", "account email")
	name := fs.String("name", "", "account or token name")
	plan := fs.String("plan", "", "plan: "+strings.Join(billing.PlanNames(), ", "))
	asJSON := fs.Bool("json", false, "print JSON")
	id := fs.Int64("id", 0, "token id")
	creditsN := fs.Int64("credits", 0, "credits to grant")
	rotate := fs.Bool("rotate", false, "replace the webhook secret")
	if err := c.parse(fs, args); err != nil {
		return err
	}
	need := func(v, flagName string) error {
		if strings.TrimSpace(v) == "" {
			return usageError{fmt.Errorf("%s needs --%s", cmd, flagName)}
		}
		return nil
	}
	ctx := context.Background()
	e, err := openEnv(ctx, *cfg)
	if err != nil {
		return err
	}
	defer e.close()
	account := func() (ports.Account, error) {
		if err := need(*email, "email"); err != nil {
			return ports.Account{}, err
		}
		a, err := e.svc.Auth.AccountByEmail(ctx, *email)
		if failure.Is(err, failure.NotFound) {
			return a, fmt.Errorf("no account with email %s", *email)
		}
		return a, err
	}

	switch cmd {
	case "accounts create":
		if err := need(*email, "email"); err != nil {
			return err
		}
		p := *plan
		if p == "" {
			p = "basic"
		}
		a, err := e.svc.Auth.CreateAccount(ctx, *email, *name, p)
		if err != nil {
			return err
		}
		if *asJSON {
			return c.json(accountOut(a))
		}
		fmt.Fprintf(c.Stdout, "created account %d %s (%s)\n", a.ID, a.Email, billing.MustPlan(a.Plan).DisplayName)
	case "accounts list":
		list, err := e.svc.Auth.ListAccounts(ctx)
		if err != nil {
			return err
		}
		if *asJSON {
			out := make([]map[string]any, len(list))
			for i, a := range list {
				out[i] = accountOut(a)
			}
			return c.json(out)
		}
		tw := tabwriter.NewWriter(c.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tEMAIL\tNAME\tPLAN\tCREATED")
		for _, a := range list {
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", a.ID, a.Email, a.Name, billing.MustPlan(a.Plan).DisplayName, a.CreatedAt.Format(time.RFC3339))
		}
		return tw.Flush()
	case "accounts set-plan":
		a, err := account()
		if err != nil {
			return err
		}
		if err := need(*plan, "plan"); err != nil {
			return err
		}
		if err := e.svc.Credits.SetPlan(ctx, a.ID, *plan); err != nil {
			return err
		}
		fmt.Fprintf(c.Stdout, "%s is on the %s plan\n", a.Email, billing.MustPlan(*plan).DisplayName)
	case "tokens create":
		a, err := account()
		if err != nil {
			return err
		}
		t, err := e.svc.Auth.CreateToken(ctx, a.ID, *name)
		if err != nil {
			return err
		}
		if *asJSON {
			return c.json(map[string]any{"id": t.Token.ID, "name": t.Token.Name, "token": t.Secret, "preview": t.Token.Preview})
		}
		fmt.Fprintf(c.Stdout, "token %d (%s) for %s. It is shown this once:\n\n    %s\n\n", t.Token.ID, t.Token.Name, a.Email, t.Secret)
	case "tokens list":
		a, err := account()
		if err != nil {
			return err
		}
		list, err := e.svc.Auth.ListTokens(ctx, a.ID)
		if err != nil {
			return err
		}
		if *asJSON {
			out := make([]map[string]any, len(list))
			for i, t := range list {
				var last any
				if t.LastUsedAt != nil {
					last = t.LastUsedAt.Format(time.RFC3339)
				}
				out[i] = map[string]any{"id": t.ID, "name": t.Name, "preview": t.Preview, "last_used_at": last, "created_at": t.CreatedAt.Format(time.RFC3339)}
			}
			return c.json(out)
		}
		tw := tabwriter.NewWriter(c.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tNAME\tPREVIEW\tLAST USED\tCREATED")
		for _, t := range list {
			last := "never"
			if t.LastUsedAt != nil {
				last = t.LastUsedAt.Format(time.RFC3339)
			}
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", t.ID, t.Name, t.Preview, last, t.CreatedAt.Format(time.RFC3339))
		}
		return tw.Flush()
	case "tokens delete":
		a, err := account()
		if err != nil {
			return err
		}
		if *id <= 0 {
			return usageError{errors.New("tokens delete needs --id")}
		}
		if err := e.svc.Auth.DeleteToken(ctx, a.ID, *id); err != nil {
			if failure.Is(err, failure.NotFound) {
				return fmt.Errorf("%s has no token %d", a.Email, *id)
			}
			return err
		}
		fmt.Fprintf(c.Stdout, "token %d deleted\n", *id)
	case "credits grant":
		a, err := account()
		if err != nil {
			return err
		}
		if err := e.svc.Credits.Grant(ctx, a.ID, *creditsN); err != nil {
			return err
		}
		fmt.Fprintf(c.Stdout, "granted %s credits to %s\n", billing.FormatCredits(*creditsN), a.Email)
	case "webhooks secret":
		a, err := account()
		if err != nil {
			return err
		}
		var secret string
		if *rotate {
			secret = bulk.NewWebhookSecret()
			err = e.store.SetWebhookSecret(ctx, a.ID, secret)
		} else {
			secret, err = e.store.WebhookSecret(ctx, a.ID, bulk.NewWebhookSecret)
		}
		if err != nil {
			return err
		}
		fmt.Fprintln(c.Stdout, secret)
	default:
		return usageError{fmt.Errorf("unknown command %q", cmd)}
	}
	return nil
}

func accountOut(a ports.Account) map[string]any {
	p := a.Plan
	if p == "" {
		p = "none"
	}
	return map[string]any{"id": a.ID, "email": a.Email, "name": a.Name, "plan": p, "created_at": a.CreatedAt.Format(time.RFC3339)}
}

func (c CLI) json(v any) error {
	enc := json.NewEncoder(c.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
