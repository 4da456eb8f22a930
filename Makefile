# corral — see README.md. `make run` and `make test` are the two that matter.
SHELL := /usr/bin/env bash
.SHELLFLAGS := -eu -o pipefail -c

BIN     := $(CURDIR)/bin
GO      ?= go
# Integration suites start control planes from bin/ (envtest reads
# KUBEBUILDER_ASSETS; localcluster reads CORRAL_BIN_DIR).
export CORRAL_BIN_DIR     := $(BIN)
export KUBEBUILDER_ASSETS := $(BIN)

# Tools built from the module proxy are cached per machine, not per clone.
TOOLS_CACHE           ?= $(or $(CORRAL_TOOLS_CACHE),$(HOME)/.cache/corral/tools)
GOLANGCI_LINT_VERSION := v2.6.2
GOLANGCI_LINT         := $(TOOLS_CACHE)/golangci-lint-$(GOLANGCI_LINT_VERSION)
HELM_VERSION          := v3.22.0
HELM                  := $(TOOLS_CACHE)/helm-$(HELM_VERSION)/helm
CONTROLLER_GEN_VERSION := v0.23.0
CONTROLLER_GEN         := $(TOOLS_CACHE)/controller-gen-$(CONTROLLER_GEN_VERSION)

# What `corral version` says: the nearest tag (else the commit), and the
# commit, "-dirty" when the tree has uncommitted changes.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT  ?= $(shell git rev-parse HEAD 2>/dev/null || echo unknown)$(shell git diff --quiet HEAD 2>/dev/null || echo -dirty)
# Read once: a tree edited while make runs must not give the binary one
# version and the image built after it another.
VERSION := $(VERSION)
COMMIT  := $(COMMIT)
VERSION_LDFLAGS := -X github.com/corral-dev/corral/internal/version.version=$(VERSION) -X github.com/corral-dev/corral/internal/version.commit=$(COMMIT)

# The release images (make image, make push): REGISTRY/corral:VERSION, the
# name an install of corral defaults to. Their time, and their files', is
# the commit's, so that a commit makes the same digest every time.
REGISTRY          ?= ghcr.io/corral-dev
IMAGE             ?= $(REGISTRY)/corral:$(VERSION)
EXAMPLE_IMAGE     ?= $(REGISTRY)/hello-addon:$(VERSION)
IMAGE_ARCHES      := amd64 arm64
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)
SOURCE_DATE_EPOCH := $(SOURCE_DATE_EPOCH)
PUSH_FLAGS        ?=

TEST_FLAGS  ?=
UNIT_PKGS    = $$($(GO) list ./... | grep -v '/test/')

.PHONY: help
help: ## Show the targets.
	@grep -E '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-14s %s\n", $$1, $$2}'

.PHONY: run
run: kube-tools host-packages build images examples ## Build what is needed and bring up a local fleet (hub + 2 managed clusters).
	@if $(BIN)/corral dev status >/dev/null 2>&1; then \
	  echo "A fleet is already running (make down stops it):"; $(BIN)/corral dev status; \
	else \
	  $(BIN)/corral dev up $(RUN_ARGS); \
	fi

.PHONY: down
down: build ## Stop the local fleet started by `make run`.
	$(BIN)/corral dev down

.PHONY: build
build: ## Build bin/corral.
	$(GO) build -ldflags "$(VERSION_LDFLAGS)" -o $(BIN)/corral ./cmd/corral

.PHONY: host-packages
host-packages: ## Install what real nodes run on, when missing: containerd, runc, the CNI plugins (apt-get).
	bash hack/host-packages.sh

.PHONY: images
images: ## Build the programs of the local fleet's images: bin/pause (the pods' sandbox) and bin/sample-app (static, for images FROM scratch).
	CGO_ENABLED=0 $(GO) build -ldflags "-s -w" -o $(BIN)/pause ./dev/pause
	CGO_ENABLED=0 $(GO) build -ldflags "-s -w" -o $(BIN)/sample-app ./dev/sampleapp

.PHONY: examples
examples: ## Build the example third-party addon, bin/hello-addon (examples/hello-addon).
	CGO_ENABLED=0 $(GO) build -ldflags "-s -w" -o $(BIN)/hello-addon ./examples/hello-addon/cmd/hello-addon

.PHONY: helm
helm: ## Build bin/helm (Helm, of HELM_VERSION, from the Go module proxy; cached per machine), to install the charts in deploy/charts.
	@test -x $(HELM) || { echo "building helm $(HELM_VERSION) (a few minutes, once per machine)"; GOBIN=$(dir $(HELM)) $(GO) install helm.sh/helm/v3/cmd/helm@$(HELM_VERSION); }
	@mkdir -p $(BIN) && ln -sf $(HELM) $(BIN)/helm

# release-image builds the program $(1) from the package $(2) statically for
# each of IMAGE_ARCHES (bin/$(1)-linux-ARCH), then the image $(3) of them:
# the OCI layout bin/image/$(1) and this machine's archive bin/image/$(1).tar.
define release-image
	for arch in $(IMAGE_ARCHES); do \
	  CGO_ENABLED=0 GOOS=linux GOARCH=$$arch $(GO) build -trimpath -ldflags "-s -w $(VERSION_LDFLAGS)" -o $(BIN)/$(1)-linux-$$arch $(2); \
	done
	@mkdir -p $(BIN)/image
	$(GO) run ./hack/image build --title $(1) --ref $(3) --version $(VERSION) --revision $(COMMIT) --created $(SOURCE_DATE_EPOCH) \
	  --layout $(BIN)/image/$(1) --archive $(BIN)/image/$(1).tar $(foreach a,$(IMAGE_ARCHES),$(a)=$(BIN)/$(1)-linux-$(a))
endef

.PHONY: image push example-image example-push
image: ## Build the corral image REGISTRY/corral:VERSION (linux/amd64, linux/arm64; no Docker): bin/image/corral, an OCI layout, and bin/image/corral.tar, this machine's, for corral dev load.
	$(call release-image,corral,./cmd/corral,$(IMAGE))

push: image ## Push the corral image: make push REGISTRY=registry.example.com/me (default ghcr.io/corral-dev; PUSH_FLAGS=--insecure for plain HTTP).
	$(GO) run ./hack/image push --ref $(IMAGE) $(PUSH_FLAGS) $(BIN)/image/corral

example-image: ## Build the example addon's image REGISTRY/hello-addon:VERSION as make image does: bin/image/hello-addon, bin/image/hello-addon.tar.
	$(call release-image,hello-addon,./examples/hello-addon/cmd/hello-addon,$(EXAMPLE_IMAGE))

example-push: example-image ## Push the example addon's image, as make push does.
	$(GO) run ./hack/image push --ref $(EXAMPLE_IMAGE) $(PUSH_FLAGS) $(BIN)/image/hello-addon

.PHONY: tools kube-tools ocm-tools
tools: kube-tools ocm-tools ## Build every binary the tests need into bin/ (minutes when cold, cached by content).

kube-tools: ## Build kube-apiserver, kube-controller-manager, kube-scheduler, kubelet, kube-proxy, etcd and kwok into bin/ (what a local fleet needs).
	bash hack/tools/build.sh $(BIN)

ocm-tools: ## Build upstream OCM's registration, work, placement and addon binaries and the addon framework's helloworld example into bin/, for the interop tests.
	bash hack/tools/ocm/build.sh $(BIN)

.PHONY: test
test: lint unit integration interop e2e ## Everything CI runs: lint, unit, integration, interop and e2e tests.

.PHONY: unit
unit: ## Unit tests.
	$(GO) test $(TEST_FLAGS) $(UNIT_PKGS)

.PHONY: integration
integration: kube-tools ## Integration tests on real control planes.
	$(GO) test $(TEST_FLAGS) -timeout 30m ./test/integration/...

.PHONY: interop
interop: tools ## Interop tests: upstream OCM's agents, hub and scheduler against corral's.
	$(GO) test $(TEST_FLAGS) -timeout 20m ./test/interop/...

.PHONY: e2e
# The e2e tests load this machine's image only: no other architecture.
e2e: IMAGE_ARCHES := $(shell $(GO) env GOARCH)
e2e: tools host-packages build images examples helm image ## End-to-end tests: the corral binary (and the example addons) against a local fleet with real nodes.
	$(GO) test $(TEST_FLAGS) -timeout 30m ./test/e2e/...

# The generated files (deepcopy, CRDs) are committed: run `make generate`
# after changing an API's types and commit what it writes. Neither test nor
# lint runs it, to keep CI from building controller-gen.
.PHONY: generate
generate: $(CONTROLLER_GEN) ## Generate corral's own APIs' deepcopy and CRDs (propagation/api); the results are committed.
	$(CONTROLLER_GEN) object paths=./propagation/api/...
	$(CONTROLLER_GEN) crd paths=./propagation/api/... output:crd:artifacts:config=deploy/charts/corral-hub/crds

$(CONTROLLER_GEN):
	@echo "generate: building controller-gen $(CONTROLLER_GEN_VERSION) (once)"
	@tmp=$$(mktemp -d) && GOBIN=$$tmp $(GO) install sigs.k8s.io/controller-tools/cmd/controller-gen@$(CONTROLLER_GEN_VERSION) \
	  && mkdir -p $(TOOLS_CACHE) && mv $$tmp/controller-gen $@ && rmdir $$tmp

.PHONY: lint
lint: $(GOLANGCI_LINT) ## gofmt, go vet and golangci-lint.
	@out=$$(gofmt -l $$(git ls-files '*.go' | grep -v '^hack/tools/')); \
	  if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GOLANGCI_LINT) run --allow-parallel-runners ./...

$(GOLANGCI_LINT):
	@echo "lint: building golangci-lint $(GOLANGCI_LINT_VERSION) (once; about 2 minutes)"
	@tmp=$$(mktemp -d) && GOBIN=$$tmp $(GO) install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_LINT_VERSION) \
	  && mkdir -p $(TOOLS_CACHE) && mv $$tmp/golangci-lint $@ && rmdir $$tmp
