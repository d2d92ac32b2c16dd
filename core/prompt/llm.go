package prompt

import (
	"errors"

	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

// LLMFailure words a language model's typed reason for the caller:
// Unavailable, saying why no response could be produced. Any other error (a
// failure already worded, a context's error) is returned as it is.
func LLMFailure(err error) error {
	var le *ports.LLMError
	if !errors.As(err, &le) {
		return err
	}
	const prefix = "No response could be produced: "
	reason, msg := failure.ReasonLLMFailed, prefix+"the language model did not answer."
	switch le.Reason {
	case ports.LLMNotConfigured:
		reason, msg = failure.ReasonLLMUnavailable, prefix+"no language model is configured on this server (TRAWL_LLM_BASE_URL and TRAWL_LLM_MODEL)."
	case ports.LLMRateLimited:
		msg = prefix + "the language model is rate-limiting requests."
	case ports.LLMUnreadable:
		msg = prefix + "the language model's answer could not be read."
	case ports.LLMRefused:
		msg = prefix + "the language model refused the request."
	case ports.LLMNoText:
		msg = prefix + "the model returned no text."
	}
	return failure.Unable("llm", reason, msg, err)
}
