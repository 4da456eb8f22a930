package conversion

import (
	"encoding/json"
	"fmt"
	"net/http"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	ctrl "sigs.k8s.io/controller-runtime"
)

// maxReviewBytes bounds a ConversionReview's body: a list of addons is
// converted in one review.
const maxReviewBytes = 64 << 20

// Handler serves apiextensions.k8s.io/v1 ConversionReviews for
// ManagedClusterAddOn and ClusterManagementAddOn.
func Handler() http.Handler {
	return http.HandlerFunc(serve)
}

func serve(w http.ResponseWriter, r *http.Request) {
	log := ctrl.LoggerFrom(r.Context()).WithName("addon-conversion")
	if r.Method != http.MethodPost {
		http.Error(w, "a ConversionReview is POSTed", http.StatusMethodNotAllowed)
		return
	}
	review := &apiextensionsv1.ConversionReview{}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxReviewBytes)).Decode(review); err != nil || review.Request == nil {
		http.Error(w, fmt.Sprintf("the body is not a ConversionReview with a request: %v", err), http.StatusBadRequest)
		return
	}
	converted, err := ConvertAll(review.Request.Objects, review.Request.DesiredAPIVersion)
	response := &apiextensionsv1.ConversionResponse{UID: review.Request.UID, Result: metav1.Status{Status: metav1.StatusSuccess}}
	if err != nil {
		log.Error(err, "Refusing a conversion", "desiredAPIVersion", review.Request.DesiredAPIVersion)
		response.Result = metav1.Status{Status: metav1.StatusFailure, Message: err.Error()}
	} else {
		response.ConvertedObjects = converted
		log.V(4).Info("Converted addon objects", "count", len(converted), "desiredAPIVersion", review.Request.DesiredAPIVersion)
	}
	w.Header().Set("Content-Type", "application/json")
	out := apiextensionsv1.ConversionReview{TypeMeta: review.TypeMeta, Response: response}
	if err := json.NewEncoder(w).Encode(out); err != nil {
		log.Error(err, "Writing a ConversionReview response")
	}
}

// ConvertAll converts every object to desired (an apiVersion); any
// failure fails them all, as the API server expects.
func ConvertAll(objects []runtime.RawExtension, desired string) ([]runtime.RawExtension, error) {
	out := make([]runtime.RawExtension, 0, len(objects))
	for _, obj := range objects {
		b, err := Convert(obj.Raw, desired)
		if err != nil {
			return nil, err
		}
		out = append(out, runtime.RawExtension{Raw: b})
	}
	return out, nil
}

// Convert converts one ManagedClusterAddOn or ClusterManagementAddOn, as
// JSON, to desired (an apiVersion); an object already at desired comes
// back unchanged.
func Convert(raw []byte, desired string) ([]byte, error) {
	var tm metav1.TypeMeta
	if err := json.Unmarshal(raw, &tm); err != nil {
		return nil, fmt.Errorf("reading an object to convert: %w", err)
	}
	if tm.APIVersion == desired {
		return raw, nil
	}
	alpha, beta := addonv1alpha1.GroupVersion.String(), addonv1beta1.GroupVersion.String()
	switch {
	case tm.Kind == "ManagedClusterAddOn" && tm.APIVersion == alpha && desired == beta:
		return convertJSON(raw, ManagedClusterAddOnToV1beta1)
	case tm.Kind == "ManagedClusterAddOn" && tm.APIVersion == beta && desired == alpha:
		return convertJSON(raw, ManagedClusterAddOnToV1alpha1)
	case tm.Kind == "ClusterManagementAddOn" && tm.APIVersion == alpha && desired == beta:
		return convertJSON(raw, ClusterManagementAddOnToV1beta1)
	case tm.Kind == "ClusterManagementAddOn" && tm.APIVersion == beta && desired == alpha:
		return convertJSON(raw, ClusterManagementAddOnToV1alpha1)
	}
	return nil, fmt.Errorf("cannot convert %s %s to %s: only ManagedClusterAddOn and ClusterManagementAddOn between %s and %s", tm.Kind, tm.APIVersion, desired, alpha, beta)
}

// convertJSON decodes raw as In, converts it and encodes the result.
func convertJSON[In, Out any](raw []byte, convert func(*In) (*Out, error)) ([]byte, error) {
	in := new(In)
	if err := json.Unmarshal(raw, in); err != nil {
		return nil, fmt.Errorf("decoding the object to convert: %w", err)
	}
	out, err := convert(in)
	if err != nil {
		return nil, err
	}
	return json.Marshal(out)
}
