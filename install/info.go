package install

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Info is what `corral get hub-info` and `get agent-info` say of an
// installed Deployment: which version and image, how many replicas are
// ready, and which copy leads.
type Info struct {
	Namespace  string `json:"namespace"`
	Deployment string `json:"deployment"`
	// Installed is false when there is no such Deployment (corral runs
	// elsewhere, or not at all).
	Installed bool   `json:"installed"`
	Version   string `json:"version,omitempty"`
	Image     string `json:"image,omitempty"`
	Replicas  int32  `json:"replicas"`
	Ready     int32  `json:"readyReplicas"`
	Updated   int32  `json:"updatedReplicas"`
	// Conditions are the Deployment's, as "Type=Status (Reason)".
	Conditions []string `json:"conditions,omitempty"`
	// Leaders are the holders of the election Leases, by Lease name.
	Leaders []Leader `json:"leaders,omitempty"`
}

// VersionLabel is the label of every installed object that says which
// corral version it is of.
const VersionLabel = "app.kubernetes.io/version"

// Leader is who holds one election Lease, and how fresh its hold is.
type Leader struct {
	Lease    string `json:"lease"`
	Holder   string `json:"holder"`
	Renewed  string `json:"renewed,omitempty"`
	Duration int32  `json:"leaseDurationSeconds,omitempty"`
}

// ReadInfo reads the Deployment namespace/name and the Leases named
// leases in namespace.
func ReadInfo(ctx context.Context, c client.Client, namespace, name string, leases ...string) (Info, error) {
	info := Info{Namespace: namespace, Deployment: name}
	d := &appsv1.Deployment{}
	err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, d)
	switch {
	case client.IgnoreNotFound(err) != nil:
		return info, fmt.Errorf("reading deployment %s/%s: %w", namespace, name, err)
	case err == nil:
		info.Installed = true
		info.Version = d.Labels[VersionLabel]
		if cs := d.Spec.Template.Spec.Containers; len(cs) > 0 {
			info.Image = cs[0].Image
		}
		if d.Spec.Replicas != nil {
			info.Replicas = *d.Spec.Replicas
		}
		info.Ready, info.Updated = d.Status.ReadyReplicas, d.Status.UpdatedReplicas
		for _, cond := range d.Status.Conditions {
			info.Conditions = append(info.Conditions, fmt.Sprintf("%s=%s (%s)", cond.Type, cond.Status, cond.Reason))
		}
	}
	for _, lease := range leases {
		l := &coordinationv1.Lease{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: lease}, l); err != nil {
			if client.IgnoreNotFound(err) != nil {
				return info, fmt.Errorf("reading lease %s/%s: %w", namespace, lease, err)
			}
			continue
		}
		leader := Leader{Lease: lease}
		if l.Spec.HolderIdentity != nil {
			leader.Holder = *l.Spec.HolderIdentity
		}
		if l.Spec.RenewTime != nil {
			leader.Renewed = l.Spec.RenewTime.UTC().Format(time.RFC3339)
		}
		if l.Spec.LeaseDurationSeconds != nil {
			leader.Duration = *l.Spec.LeaseDurationSeconds
		}
		info.Leaders = append(info.Leaders, leader)
	}
	return info, nil
}

// Print writes info as lines of "key: value", what a person reads.
func (i Info) Print(w io.Writer, what string) {
	if !i.Installed {
		fmt.Fprintf(w, "%s: not installed (no deployment %s/%s)\n", what, i.Namespace, i.Deployment)
	} else {
		fmt.Fprintf(w, "%s: deployment %s/%s\n", what, i.Namespace, i.Deployment)
		fmt.Fprintf(w, "  version:  %s\n  image:    %s\n  replicas: %d ready, %d up to date, of %d\n", i.Version, i.Image, i.Ready, i.Updated, i.Replicas)
		if len(i.Conditions) > 0 {
			fmt.Fprintf(w, "  conditions: %s\n", strings.Join(i.Conditions, ", "))
		}
	}
	for _, l := range i.Leaders {
		holder := l.Holder
		if holder == "" {
			holder = "(none)"
		}
		fmt.Fprintf(w, "  leader (lease %s): %s, renewed %s\n", l.Lease, holder, l.Renewed)
	}
}
