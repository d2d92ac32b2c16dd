package search

import (
	"errors"
	"fmt"
	"strings"

	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

// EngineFailure words an engine's typed reason for the caller:
// Unavailable, saying why the search could not be completed. Any other
// error is returned as it is.
func EngineFailure(err error) error {
	var se *ports.SearchError
	if !errors.As(err, &se) {
		return err
	}
	engine := se.Engine
	name := engine
	if name != "" {
		name = strings.ToUpper(name[:1]) + name[1:]
	}
	prefix := fmt.Sprintf("The %s search could not be completed: ", engine)
	reason, detail := failure.ReasonEngineFailed, "the result page could not be read."
	switch se.Reason {
	case ports.SearchBlocked:
		reason, detail = failure.ReasonEngineBlocked, name+" answered with a captcha or bot check instead of results."
	case ports.SearchUnreachable:
		reason, detail = failure.ReasonEngineUnreachable, "the engine could not be reached."
	case ports.SearchTimeout:
		reason, detail = failure.ReasonEngineUnreachable, "the engine did not answer in time."
	case ports.SearchStatus:
		reason, detail = failure.ReasonEngineUnreachable, fmt.Sprintf("%s answered %d.", name, se.Status)
	case ports.SearchTooLarge:
		detail = "the result page was too large."
	}
	return failure.Unable("search", reason, prefix+detail, err)
}
