package httpapi_test

import (
	"context"

	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/ports"
)

func creditsCall(a ports.Account) credits.Call {
	return credits.Call{Principal: ports.Principal{Account: a}, Service: "content"}
}

func twoCredits(context.Context) (int64, ports.TransactionMetadata, error) {
	return 2, ports.TransactionMetadata{}, nil
}
