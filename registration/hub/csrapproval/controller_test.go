package csrapproval

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	authorizationv1 "k8s.io/api/authorization/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/events"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/corral-dev/corral/internal/testing/builder"
	"github.com/corral-dev/corral/registration/common"
)

const (
	bootstrapUser = "system:serviceaccount:open-cluster-management:bootstrap"
	agentUser     = "system:open-cluster-management:c1:agent1"
)

// agentCSR is a well-formed request for agent1 of c1, made by requester.
func agentCSR(requester string) *certificatesv1.CertificateSigningRequest {
	return builder.CSR("c1-abcde").Label(clusterv1.ClusterNameLabelKey, "c1").
		Subject(agentUser, "system:open-cluster-management:c1").Requester(requester).
		Usages(certificatesv1.UsageDigitalSignature, certificatesv1.UsageClientAuth).Obj()
}

// The conditions of c1 its agent and the hub report.
var (
	hubAccepted = metav1.Condition{Type: clusterv1.ManagedClusterConditionHubAccepted, Status: metav1.ConditionTrue, Reason: "Test"}
	joined      = metav1.Condition{Type: clusterv1.ManagedClusterConditionJoined, Status: metav1.ConditionTrue, Reason: "Test"}
	available   = metav1.Condition{Type: clusterv1.ManagedClusterConditionAvailable, Status: metav1.ConditionTrue, Reason: "Test"}
)

// held is c1 accepted, joined and kept available by a live agent.
func held() *clusterv1.ManagedCluster {
	return builder.Cluster("c1").Accepted().Condition(hubAccepted, joined, available).Obj()
}

func TestReconcile(t *testing.T) {
	cases := map[string]struct {
		cluster   *clusterv1.ManagedCluster
		requester string
		// mayRenew is what access reviews answer.
		mayRenew bool
		// wantWhy is in the NotApproved event; "" means approved.
		wantWhy string
	}{
		"an auto-approved user's join of an accepted cluster no agent holds": {
			cluster: builder.Cluster("c1").Accepted().Condition(hubAccepted).Obj(), requester: bootstrapUser,
		},
		"an auto-approved user's join of a cluster whose agent went away": {
			cluster: builder.Cluster("c1").Accepted().Condition(hubAccepted, joined).Obj(), requester: bootstrapUser,
		},
		"an auto-approved user's join of a cluster a live agent holds": {
			cluster: held(), requester: bootstrapUser,
			wantWhy: "c1 is joined and its agent is heartbeating, so a join request for " + agentUser + " is not approved",
		},
		"an auto-approved user's join of a cluster not accepted": {
			cluster: builder.Cluster("c1").Obj(), requester: bootstrapUser, wantWhy: "cluster c1 is not accepted",
		},
		"another user's join": {
			cluster: builder.Cluster("c1").Accepted().Condition(hubAccepted).Obj(), requester: "mallory",
			wantWhy: "a join request from mallory",
		},
		"a renewal by the held cluster's own identity": {cluster: held(), requester: agentUser, mayRenew: true},
		"a renewal the API server does not allow": {
			cluster: held(), requester: agentUser, wantWhy: "may not renew the client certificates of c1",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			csr := agentCSR(tc.requester)
			scheme := runtime.NewScheme()
			if err := clientgoscheme.AddToScheme(scheme); err != nil {
				t.Fatal(err)
			}
			if err := clusterv1.Install(scheme); err != nil {
				t.Fatal(err)
			}
			c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(csr.DeepCopy(), tc.cluster).Build()
			kube := kubefake.NewClientset(csr.DeepCopy())
			kube.PrependReactor("create", "subjectaccessreviews", func(action clienttesting.Action) (bool, runtime.Object, error) {
				review := action.(clienttesting.CreateAction).GetObject().(*authorizationv1.SubjectAccessReview)
				review.Status.Allowed = tc.mayRenew
				return true, review, nil
			})
			recorder := events.NewFakeRecorder(10)
			r := &Reconciler{Client: c, Kube: kube, Recorder: recorder, AutoApproveUsers: []string{bootstrapUser}}

			if _, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: types.NamespacedName{Name: csr.Name}}); err != nil {
				t.Fatal(err)
			}

			var approved *certificatesv1.CertificateSigningRequest
			for _, a := range kube.Actions() {
				if a.GetVerb() == "update" && a.GetSubresource() == "approval" {
					approved = a.(clienttesting.UpdateAction).GetObject().(*certificatesv1.CertificateSigningRequest)
				}
			}
			if tc.wantWhy == "" {
				if approved == nil || len(approved.Status.Conditions) != 1 || approved.Status.Conditions[0].Type != certificatesv1.CertificateApproved ||
					approved.Status.Conditions[0].Reason != ReasonAutoApproved {
					t.Fatalf("the CSR was not approved with %s: %+v", ReasonAutoApproved, approved)
				}
				return
			}
			if approved != nil {
				t.Fatalf("the CSR was approved: %+v", approved.Status.Conditions)
			}
			select {
			case ev := <-recorder.Events:
				if !strings.Contains(ev, ReasonNotApproved) || !strings.Contains(ev, tc.wantWhy) {
					t.Errorf("event = %q, want %s saying %q", ev, ReasonNotApproved, tc.wantWhy)
				}
			default:
				t.Errorf("no event says why the CSR is pending (%q)", tc.wantWhy)
			}
		})
	}
}

// TestAddonCSRLeftAlone: an addon agent's request, even one that would
// pass as the cluster's own renewal, is the addon manager's: no approval,
// no access review, no event.
func TestAddonCSRLeftAlone(t *testing.T) {
	csr := agentCSR(agentUser)
	csr.Labels[addonv1alpha1.AddonLabelKey] = "hello"
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := clusterv1.Install(scheme); err != nil {
		t.Fatal(err)
	}
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(csr.DeepCopy(), held()).Build()
	kube := kubefake.NewClientset(csr.DeepCopy())
	recorder := events.NewFakeRecorder(10)
	r := &Reconciler{Client: c, Kube: kube, Recorder: recorder}
	if _, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: types.NamespacedName{Name: csr.Name}}); err != nil {
		t.Fatal(err)
	}
	if len(kube.Actions()) != 0 {
		t.Errorf("the reconciler acted on an addon CSR: %v", kube.Actions())
	}
	select {
	case ev := <-recorder.Events:
		t.Errorf("event on an addon CSR: %q", ev)
	default:
	}
}

// TestRenewalReview: a renewal is checked as the requester, with every
// attribute of its identity, for renew on managedclusters/clientcertificates.
func TestRenewalReview(t *testing.T) {
	csr := agentCSR(agentUser)
	csr.Spec.UID, csr.Spec.Groups = "uid-1", []string{"system:open-cluster-management:c1"}
	csr.Spec.Extra = map[string]certificatesv1.ExtraValue{"scopes": {"s1"}}
	kube := kubefake.NewClientset()
	var got *authorizationv1.SubjectAccessReviewSpec
	kube.PrependReactor("create", "subjectaccessreviews", func(action clienttesting.Action) (bool, runtime.Object, error) {
		review := action.(clienttesting.CreateAction).GetObject().(*authorizationv1.SubjectAccessReview)
		got = &review.Spec
		review.Status.Allowed = true
		return true, review, nil
	})
	ok, err := (&Reconciler{Kube: kube}).mayRenew(context.Background(), csr)
	if err != nil || !ok {
		t.Fatalf("mayRenew = %t, %v", ok, err)
	}
	attrs := got.ResourceAttributes
	if got.User != agentUser || got.UID != "uid-1" || len(got.Groups) != 1 || len(got.Extra["scopes"]) != 1 ||
		attrs == nil || attrs.Group != common.RegisterGroup || attrs.Resource != "managedclusters" || attrs.Subresource != "clientcertificates" || attrs.Verb != "renew" {
		t.Errorf("review = %+v, attributes %+v", got, attrs)
	}
}

// TestBecameAccepted: only an update that turns hubAcceptsClient on
// requeues a cluster's CSRs.
func TestBecameAccepted(t *testing.T) {
	accepted, notAccepted := builder.Cluster("c1").Accepted().Obj(), builder.Cluster("c1").Obj()
	relabelled := builder.Cluster("c1").Accepted().Label("env", "prod").Obj()
	cases := map[string]struct {
		fire func() bool
		want bool
	}{
		"turned on": {fire: func() bool {
			return becameAccepted.Update(event.UpdateEvent{ObjectOld: notAccepted, ObjectNew: accepted})
		}, want: true},
		"turned off": {fire: func() bool {
			return becameAccepted.Update(event.UpdateEvent{ObjectOld: accepted, ObjectNew: notAccepted})
		}},
		"stays on, other changes": {fire: func() bool {
			return becameAccepted.Update(event.UpdateEvent{ObjectOld: accepted, ObjectNew: relabelled})
		}},
		"stays off": {fire: func() bool {
			return becameAccepted.Update(event.UpdateEvent{ObjectOld: notAccepted, ObjectNew: notAccepted})
		}},
		"created accepted": {fire: func() bool { return becameAccepted.Create(event.CreateEvent{Object: accepted}) }},
		"deleted":          {fire: func() bool { return becameAccepted.Delete(event.DeleteEvent{Object: accepted}) }},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := tc.fire(); got != tc.want {
				t.Errorf("predicate = %t, want %t", got, tc.want)
			}
		})
	}
}

// TestCSRsOfCluster: a cluster maps to the CSRs labelled with its name,
// and to no other.
func TestCSRsOfCluster(t *testing.T) {
	mine, again := agentCSR(bootstrapUser), agentCSR(bootstrapUser)
	again.Name = "c1-fghij"
	other := agentCSR(bootstrapUser)
	other.Name, other.Labels = "c2-abcde", map[string]string{clusterv1.ClusterNameLabelKey: "c2"}
	unlabelled := agentCSR(bootstrapUser)
	unlabelled.Name, unlabelled.Labels = "node-csr", nil
	addon := agentCSR(agentUser)
	addon.Name, addon.Labels[addonv1alpha1.AddonLabelKey] = "addon-c1-hello-abcde", "hello"
	c := fake.NewClientBuilder().WithObjects(mine, again, other, unlabelled, addon).Build()

	got := (&Reconciler{Client: c}).csrsOfCluster(context.Background(), builder.Cluster("c1").Accepted().Obj())
	want := []reconcile.Request{{NamespacedName: types.NamespacedName{Name: "c1-abcde"}}, {NamespacedName: types.NamespacedName{Name: "c1-fghij"}}}
	if diff := cmp.Diff(want, got, cmpopts.SortSlices(func(a, b reconcile.Request) bool { return a.Name < b.Name })); diff != "" {
		t.Errorf("csrsOfCluster (-want +got):\n%s", diff)
	}
}
