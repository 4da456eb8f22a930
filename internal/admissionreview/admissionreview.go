// Package admissionreview reads the objects of an admission request and
// answers one that is malformed: what the hub's admission webhooks
// (registration/webhook, work/hub/validation) share.
package admissionreview

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// Decode reads an object of an admission request (req.Object.Raw or
// req.OldObject.Raw) into into: admissionReviewVersions v1 sends JSON.
func Decode(raw []byte, into any) error {
	if len(raw) == 0 {
		return errors.New("the request has no object")
	}
	return json.Unmarshal(raw, into)
}

// Invalid refuses a malformed object (400 Bad Request), saying why.
func Invalid(format string, args ...any) admission.Response {
	resp := admission.Denied(fmt.Sprintf(format, args...))
	resp.Result.Code = http.StatusBadRequest
	resp.Result.Reason = metav1.StatusReasonBadRequest
	return resp
}
