package sqlstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/trawlhq/trawl/adapters/clock"
	"github.com/trawlhq/trawl/adapters/sqlstore"
	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit/pgtest"
)

// The hot path of a request, per store: the authentication read, the credit
// status read, and a billed call's hold and charge. Run with -benchmem: a
// regression shows in allocations too.

func benchStores(b *testing.B, run func(b *testing.B, s *sqlstore.Store)) {
	b.Run("sqlite", func(b *testing.B) {
		s, err := sqlstore.Open(context.Background(), sqlstore.Options{DataDir: b.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		run(b, s)
	})
	b.Run("postgres", func(b *testing.B) {
		s, err := sqlstore.Open(context.Background(), sqlstore.Options{DatabaseURL: pgtest.NewDatabase(b)})
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		run(b, s)
	})
}

func benchPrincipal(b *testing.B, s *sqlstore.Store) ports.Principal {
	return newPrincipal(b, s, "business", "bench-hash")
}

func BenchmarkPrincipalByTokenHash(b *testing.B) {
	benchStores(b, func(b *testing.B, s *sqlstore.Store) {
		benchPrincipal(b, s)
		ctx := context.Background()
		b.ReportAllocs()
		for b.Loop() {
			if _, err := s.PrincipalByTokenHash(ctx, "bench-hash"); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkReadCredits(b *testing.B) {
	benchStores(b, func(b *testing.B, s *sqlstore.Store) {
		p := benchPrincipal(b, s)
		ctx := context.Background()
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := s.ReadCredits(ctx, p.Account.ID, time.Now()); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkReserveSettle is one billed call's credit work: the hold, then the
// charge of 1 credit.
func BenchmarkReserveSettle(b *testing.B) { benchBilledCalls(b, false) }

// BenchmarkBilledCall is a billed call's whole store work: the
// authentication read, the hold and the charge of 1 credit, in turn, so
// each read follows a commit as it does in the server.
func BenchmarkBilledCall(b *testing.B) { benchBilledCalls(b, true) }

// benchBilledCalls runs billed calls' credit work on each store, each
// after its authentication read when authenticate is set.
func benchBilledCalls(b *testing.B, authenticate bool) {
	benchStores(b, func(b *testing.B, s *sqlstore.Store) {
		p := benchPrincipal(b, s)
		ctx := context.Background()
		ledger, _ := credits.NewLedger(s, clock.System{})
		b.ReportAllocs()
		for b.Loop() {
			r := ports.ReserveRequest{AccountID: p.Account.ID, TokenID: p.Token.ID, Amount: 1}
			if authenticate {
				got, err := s.PrincipalByTokenHash(ctx, p.Token.Hash)
				if err != nil {
					b.Fatal(err)
				}
				r.Credits = got.Credits
			}
			h, err := ledger.Reserve(ctx, r)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := ledger.Settle(ctx, h, ports.Charge{Credits: 1, ServiceType: "scrape", ServiceName: "Scrape"}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
