package manifestwork

import (
	"errors"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	clocktesting "k8s.io/utils/clock/testing"
)

func TestAccessCacheAsksOncePerRecheck(t *testing.T) {
	clock := clocktesting.NewFakeClock(time.Now())
	c := newAccessCache(clock)
	spec := authorizationv1.SubjectAccessReviewSpec{User: "u", ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: "create", Resource: "configmaps"}}
	asked := 0
	answer, answerErr := true, error(nil)
	ask := func() (bool, error) { asked++; return answer, answerErr }

	for range 3 {
		if ok, err := c.allowed(spec, ask); !ok || err != nil {
			t.Fatalf("allowed = %v, %v; want true", ok, err)
		}
	}
	if asked != 1 {
		t.Errorf("asked %d times within the recheck period, want 1", asked)
	}
	other := spec
	other.ResourceAttributes = &authorizationv1.ResourceAttributes{Verb: "delete", Resource: "configmaps"}
	if _, _ = c.allowed(other, ask); asked != 2 {
		t.Errorf("another verb was answered from the cache")
	}

	answer = false
	clock.Step(accessRecheck)
	if ok, _ := c.allowed(spec, ask); ok || asked != 3 {
		t.Errorf("after the recheck period: allowed %v after %d asks, want a new answer (false) after 3", ok, asked)
	}

	answerErr = errors.New("boom")
	clock.Step(accessRecheck)
	if _, err := c.allowed(spec, ask); err == nil {
		t.Error("a failed review was not reported")
	}
	answerErr = nil
	if _, _ = c.allowed(spec, ask); asked != 5 {
		t.Errorf("a failed review was remembered: %d asks, want 5", asked)
	}
}
