package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/trawlhq/trawl/core/bulk"
	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/core/ratelimit"
	"github.com/trawlhq/trawl/ports"
)

func (a *API) bulkRoutes() {
	a.billed("POST /v1/content/bulk", ratelimit.Bulk, a.submitBulk)
	a.mux.HandleFunc("GET /v1/content/bulk/{job_id}", a.authed(a.bulkStatus))
	if a.files != nil {
		a.mux.Handle("GET /files/", a.files)
	}
}

type ackJSON struct {
	Message                 string          `json:"message"`
	JobID                   string          `json:"job_id"`
	URLsCount               int             `json:"urls_count"`
	URLSource               ports.URLSource `json:"url_source"`
	DeliveryMethod          string          `json:"delivery_method"`
	EstimatedCompletionTime string          `json:"estimated_completion_time"`
	Status                  ports.JobStatus `json:"status"`
	QueuedAt                string          `json:"queued_at"`
}

func (a *API) submitBulk(r *http.Request, c credits.Call) (int, any, credits.Receipt, error) {
	b, err := decodeBody(r)
	if err != nil {
		return 0, nil, credits.Receipt{}, err
	}
	var fe failure.FieldErrors
	var req bulk.Request
	if raw, ok := b["urls"]; ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &req.URLs); err != nil {
			fe.Add("urls", "The urls field must be an array of strings.")
		}
	}
	req.Sitemap, _ = b.String(&fe, "sitemap")
	req.CallbackURL, _ = b.String(&fe, "callback_url")
	req.Email = b.Bool(&fe, "email")
	req.Sync = b.Bool(&fe, "sync")
	req.Render, _ = b.String(&fe, "render")
	req.MaxAge, req.NoStore = b.cacheFields(&fe)
	req.Changes, req.Tag = b.changeFields(&fe)
	req.Options = bodyOptions(&fe, b)
	if err := fe.Err("httpapi.submitBulk"); err != nil {
		return 0, nil, credits.Receipt{}, err
	}
	ack, err := a.svc.Bulk.Submit(r.Context(), c, req)
	if err != nil {
		return 0, nil, credits.Receipt{}, err
	}
	status := http.StatusAccepted
	if ack.Sync {
		status = http.StatusOK
	}
	return status, ackJSON{ack.Message, ack.JobID, ack.URLsCount, ack.URLSource, ack.DeliveryMethod, ack.EstimatedCompletionTime, ack.Status, ports.FormatTime(ack.QueuedAt)}, credits.Receipt{}, nil
}

type jobURLJSON struct {
	URL        string          `json:"url"`
	Status     ports.URLStatus `json:"status"`
	Success    bool            `json:"success"`
	StatusCode int             `json:"statusCode"`
	Error      *string         `json:"error"`
	Engine     string          `json:"engine,omitempty"`
	Reason     string          `json:"reason,omitempty"`
	Retryable  *bool           `json:"retryable,omitempty"`
}

type deliveryJSON struct {
	Channel    ports.DeliveryChannel `json:"channel"`
	Attempt    int                   `json:"attempt"`
	StatusCode int                   `json:"status_code,omitempty"`
	Error      *string               `json:"error"`
	DurationMS int64                 `json:"duration_ms"`
	At         string                `json:"at"`
}

func (a *API) bulkStatus(w http.ResponseWriter, r *http.Request) {
	st, err := a.svc.Bulk.Status(r.Context(), principal(r.Context()).Account.ID, r.PathValue("job_id"))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	j := st.Job
	out := map[string]any{
		"job_id": j.ID, "status": j.Status, "url_source": j.URLSource, "delivery_method": st.DeliveryMethod,
		"urls_count": j.URLsCount, "processed_count": st.Processed, "success_count": st.Succeeded, "failed_count": st.Failed,
		"queued_at": ports.FormatTime(j.QueuedAt), "started_at": isoPtr(j.StartedAt), "completed_at": isoPtr(j.CompletedAt), "failed_at": isoPtr(j.FailedAt),
		"error": nil, "download_url": nil, "sync": j.Sync, "render": bulk.Render(j),
	}
	if j.Error != "" {
		out["error"] = j.Error
	}
	if st.Download != "" {
		out["download_url"] = st.Download
	}
	urls := make([]jobURLJSON, len(st.URLs))
	for i, u := range st.URLs {
		urls[i] = jobURLJSON{URL: u.URL, Status: u.Status, Success: u.Status == ports.URLSucceeded, StatusCode: u.StatusCode, Engine: u.Engine}
		if u.Error != "" {
			e := u.Error
			urls[i].Error = &e
		}
		if reason, retry, ok := bulk.URLOutcome(u); ok {
			urls[i].Reason, urls[i].Retryable = string(reason), &retry
		}
	}
	out["results"] = urls
	ds := make([]deliveryJSON, len(st.Deliveries))
	for i, d := range st.Deliveries {
		ds[i] = deliveryJSON{Channel: d.Channel, Attempt: d.Attempt, StatusCode: d.StatusCode, DurationMS: d.Duration.Milliseconds(), At: ports.FormatTime(d.At)}
		if d.Error != "" {
			e := d.Error
			ds[i].Error = &e
		}
	}
	out["deliveries"] = ds
	writeJSON(w, http.StatusOK, out)
}
