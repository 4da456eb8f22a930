package addonowner

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
)

func TestWithOwner(t *testing.T) {
	cma := &addonv1alpha1.ClusterManagementAddOn{ObjectMeta: metav1.ObjectMeta{Name: "hello", UID: "u2"}}
	want := OwnerReference(cma)
	stale := want
	stale.UID = "u1"
	other := metav1.OwnerReference{APIVersion: "example.com/v1", Kind: "Thing", Name: "t", UID: "t1", Controller: ptr.To(true)}
	asOwner := want
	asOwner.Controller = nil
	cases := map[string]struct {
		owners      []metav1.OwnerReference
		want        []metav1.OwnerReference
		wantChanged bool
	}{
		"none":                        {want: []metav1.OwnerReference{want}, wantChanged: true},
		"already":                     {owners: []metav1.OwnerReference{want}, want: []metav1.OwnerReference{want}},
		"an earlier CMA of that name": {owners: []metav1.OwnerReference{stale}, want: []metav1.OwnerReference{want}, wantChanged: true},
		"another controller first":    {owners: []metav1.OwnerReference{other}, want: []metav1.OwnerReference{other, asOwner}, wantChanged: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, changed := withOwner(tc.owners, cma)
			if changed != tc.wantChanged {
				t.Errorf("changed = %t, want %t", changed, tc.wantChanged)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("owners (-want +got):\n%s", diff)
			}
		})
	}
	if want.UID != types.UID("u2") || !*want.Controller {
		t.Errorf("OwnerReference = %+v", want)
	}
}

func TestManagedByAddonManager(t *testing.T) {
	cases := map[string]struct {
		annotations map[string]string
		want        bool
	}{
		"no annotation": {want: true},
		"addon-manager": {annotations: map[string]string{addonv1alpha1.AddonLifecycleAnnotationKey: addonv1alpha1.AddonLifecycleAddonManagerAnnotationValue}, want: true},
		"self":          {annotations: map[string]string{addonv1alpha1.AddonLifecycleAnnotationKey: addonv1alpha1.AddonLifecycleSelfManageAnnotationValue}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cma := &addonv1alpha1.ClusterManagementAddOn{ObjectMeta: metav1.ObjectMeta{Annotations: tc.annotations}}
			if got := ManagedByAddonManager(cma); got != tc.want {
				t.Errorf("ManagedByAddonManager = %t, want %t", got, tc.want)
			}
		})
	}
}
