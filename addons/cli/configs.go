package cli

import (
	"context"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"open-cluster-management.io/addon-framework/pkg/utils"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/addons"
)

// checkConfigs reads every AddOnDeploymentConfig in configs that names its
// namespace and has each built-in addon among addons validate it, so that
// enable refuses a config the addon's hub half would reject; a third-party
// addon's configs are its own business. A config not there yet is left for
// the hub to wait for (it may come later): checkConfigs returns those, as
// namespace/name.
func checkConfigs(ctx context.Context, c client.Reader, addonNames []string, configs []addonv1alpha1.AddOnConfig, builtins []addons.Addon) ([]string, error) {
	var missing []string
	for _, ref := range configs {
		if ref.Group != utils.AddOnDeploymentConfigGVR.Group || ref.Resource != utils.AddOnDeploymentConfigGVR.Resource || ref.Namespace == "" {
			continue
		}
		adc := &addonv1alpha1.AddOnDeploymentConfig{}
		err := c.Get(ctx, client.ObjectKey{Namespace: ref.Namespace, Name: ref.Name}, adc)
		if apierrors.IsNotFound(err) {
			missing = append(missing, ref.Namespace+"/"+ref.Name)
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("reading AddOnDeploymentConfig %s/%s: %w", ref.Namespace, ref.Name, err)
		}
		for _, name := range addonNames {
			validate := validatorOf(builtins, name)
			if validate == nil {
				continue
			}
			if err := validate(adc.Spec); err != nil {
				return nil, fmt.Errorf("AddOnDeploymentConfig %s/%s is not a valid config of addon %s: %s; nothing was enabled",
					ref.Namespace, ref.Name, name, strings.ReplaceAll(err.Error(), "\n", "; "))
			}
		}
	}
	return missing, nil
}

func validatorOf(builtins []addons.Addon, name string) func(addonv1alpha1.AddOnDeploymentConfigSpec) error {
	for _, a := range builtins {
		if a.Name == name {
			return a.ValidateDeploymentConfig
		}
	}
	return nil
}
