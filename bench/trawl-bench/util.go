package main

import (
	"net/url"
	"runtime"

	"github.com/trawlhq/trawl/core/billing"
)

func runtimeGOMAXPROCS() int { return runtime.GOMAXPROCS(0) }

func replaceDB(admin, name string) string {
	u, err := url.Parse(admin)
	if err != nil {
		return admin
	}
	u.Path = "/" + name
	return u.String()
}

// liftedPlans is the default plan table with the per-minute limits of the
// given groups (every group when none is given) lifted out of the way.
func liftedPlans(groups ...string) billing.Plans {
	if len(groups) == 0 {
		groups = billing.RateGroups
	}
	list := billing.DefaultPlanList()
	for _, p := range list {
		for _, g := range groups {
			p.PerMinute[g] = 1 << 30
		}
	}
	plans, err := billing.NewPlans(list)
	if err != nil {
		panic(err)
	}
	return plans
}
