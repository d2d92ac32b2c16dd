package httpapi

import (
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/trawlhq/trawl/core/billing"
	"github.com/trawlhq/trawl/ports"
)

// The credit status is the answer of GET /v1/credits and of usage-stats,
// the most frequent read of the API: its fixed shape is written straight
// into one buffer, byte for byte what encodeJSON makes of statusJSON
// (statusjson_test.go holds the two together), without reflection or the
// copies of an encoder.

// writeRaw writes an encoded JSON answer with a status.
func writeRaw(w http.ResponseWriter, status int, body []byte) {
	w.Header()["Content-Type"] = []string{"application/json"}
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// creditsBody is the answer of GET /v1/credits: the balance fields, then
// the whole status under "status".
func creditsBody(st billing.Status) []byte {
	b := appendBalance(make([]byte, 0, 384), st)
	b = append(b, `,"status":`...)
	b = appendStatus(b, st)
	return append(b, "}\n"...)
}

// statusBody is the status object alone, as usage-stats answers it.
func statusBody(st billing.Status) []byte {
	return append(appendStatus(make([]byte, 0, 256), st), '\n')
}

// appendBalance opens an object with the balance fields both answers start
// with: balance, formatted_balance, limit, used.
func appendBalance(b []byte, st billing.Status) []byte {
	b = append(b, `{"balance":`...)
	b = strconv.AppendInt(b, st.Balance, 10)
	b = append(b, `,"formatted_balance":`...)
	b = appendJSONString(b, st.FormattedBalance)
	b = append(b, `,"limit":`...)
	b = strconv.AppendInt(b, st.Limit, 10)
	b = append(b, `,"used":`...)
	return strconv.AppendInt(b, st.Used, 10)
}

// appendStatus appends the status object of statusJSON.
func appendStatus(b []byte, st billing.Status) []byte {
	b = appendBalance(b, st)
	b = append(b, `,"is_low":`...)
	b = strconv.AppendBool(b, st.IsLow)
	b = append(b, `,"threshold":`...)
	b = strconv.AppendInt(b, st.Threshold, 10)
	b = append(b, `,"percentage_used":`...)
	b = appendJSONFloat(b, st.PercentageUsed)
	b = append(b, `,"next_renewal":`...)
	if st.NextRenewal == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '"')
		b = appendISO(b, *st.NextRenewal)
		b = append(b, '"')
	}
	return append(b, '}')
}

// appendISO appends ports.FormatTime(t): digits, separators and Z, nothing to escape.
func appendISO(b []byte, t time.Time) []byte {
	return t.UTC().AppendFormat(b, ports.TimeLayout)
}

// appendJSONString appends s as a JSON string. Printable ASCII other than
// the quote and the backslash is written as it is; anything else goes
// through encodeJSON, so the escaping is encoding/json's.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			enc := encodeJSON(s)
			return append(b, enc[:len(enc)-1]...) // without the encoder's newline
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendJSONFloat appends f as encoding/json writes a float64: the
// shortest decimal form, with an exponent only for very small or very
// large magnitudes. f is finite (encoding/json refuses NaN and infinities;
// a percentage never is one).
func appendJSONFloat(b []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		f = 0
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-09 -> e-9, as encoding/json writes it
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}
