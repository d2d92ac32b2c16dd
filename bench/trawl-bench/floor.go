package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
)

// The floors are what each figure is measured against: the least a server
// must do to give the same answer, on the same database, in the same run.
// They live with the benchmark, never in the product.

// rebind turns ? placeholders into the dialect's.
func rebind(db *sqlx.DB, q string) string { return db.Rebind(q) }

// creditsFloor answers GET /v1/credits with one indexed read of the token's
// account by the hash of the Bearer secret, through a prepared statement.
func creditsFloor(db *sqlx.DB) (http.Handler, error) {
	st, err := db.Preparex(rebind(db, `SELECT a.id, a.plan, a.used, a.allowance_used, a.topup
		FROM tokens t JOIN accounts a ON a.id = t.account_id WHERE t.hash = ?`))
	if err != nil {
		return nil, err
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		secret := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		sum := sha256.Sum256([]byte(secret))
		var id, used, allowance, topup int64
		var plan string
		if err := st.QueryRowContext(r.Context(), hex.EncodeToString(sum[:])).Scan(&id, &plan, &used, &allowance, &topup); err != nil {
			http.Error(w, "unauthenticated", http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"balance":%d,"limit":0,"used":%d}`, topup-used, used)
	}), nil
}

// scrapeFloor answers GET /v1/scrape by fetching the page and writing the
// charge in one transaction: update the balance, insert the transaction.
func scrapeFloor(db *sqlx.DB, accountID int64, pageURL string) (http.Handler, error) {
	upd, err := db.Preparex(rebind(db, `UPDATE accounts SET used = used + 1, allowance_used = allowance_used + 1 WHERE id = ?`))
	if err != nil {
		return nil, err
	}
	ins, err := db.Preparex(rebind(db, `INSERT INTO transactions (account_id, service_type, service_name, credits, balance_after, created_at, metadata)
		VALUES (?, 'scrape', 'Scrape', 1, 0, ?, '{}')`))
	if err != nil {
		return nil, err
	}
	client := &http.Client{Timeout: 10 * time.Second}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		res, err := client.Get(pageURL)
		if err != nil {
			http.Error(w, "fetch", http.StatusBadGateway)
			return
		}
		body, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
		res.Body.Close()
		if err := chargeOnce(r.Context(), db, upd, ins, accountID); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"url":%q,"html_bytes":%d}`, pageURL, len(body))
	}), nil
}

func chargeOnce(ctx context.Context, db *sqlx.DB, upd, ins *sqlx.Stmt, accountID int64) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if _, err := tx.StmtContext(ctx, upd.Stmt).ExecContext(ctx, accountID); err != nil {
		_ = tx.Rollback()
		return err
	}
	if _, err := tx.StmtContext(ctx, ins.Stmt).ExecContext(ctx, accountID, time.Now().UnixMilli()); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}
