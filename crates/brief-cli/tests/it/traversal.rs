//! Traversal tests: which nodes `brief context` selects, and why, for fixed fixture projects.
//!
//! Every expected set below was computed by hand from the traversal rules (docs/traversal.md,
//! which restates Spec Graph's own context rules):
//!
//!   R1 target (distance 0)          R2 namespace: transitive `contains` ancestors, not expanded
//!   R3 constrainers of T or of any `contains` ancestor of T (distance 1, `inverse`)
//!   R4 layer guidance: BFS over `depends_on` targets and feature/layer `contains` parents; each
//!      layer reached gives the decisions of its `contains` closure and the constrainers of any
//!      node in that closure, minus candidates superseded by another candidate (distance 1,
//!      `propagated`); the layer and the hop nodes themselves are not selected
//!   R5 forward: from T (0) and every R3/R4 node (1) follow depends_on, implements, derived_from,
//!      verified_by while distance <= depth; forward nodes bring no constrainers or namespace
//!   R6 every node once, with all the reasons that brought it
//!
//! ## The storefront Spec Graph (tests/fixtures/specgraph-storefront)
//!
//! ```text
//! INFRA (layer)     contains DEC-INFRA-CFG-01 (pattern)
//! PLATFORM (layer)  contains PLAT-DATA, DEC-PLAT-EVT-01 (architecture), POL-PLAT-LOG-01 (soft)
//!                   depends_on INFRA, FND-PLAT-01
//!   PLAT-DATA (feature) contains DEC-PLAT-STORE-01 (stack), DEC-PLAT-STORE-02 (stack)
//!   DEC-PLAT-STORE-02 supersedes DEC-PLAT-STORE-01
//!   DEC-PLAT-EVT-01 depends_on DEC-MSG-01 (stack, in no layer)
//! DEC-PLAT-API-01 (interface, in no layer) constrains DEC-PLAT-EVT-01
//! POL-PLAT-TLS-01 (hard, in no layer)      constrains PLATFORM
//! POL-PLAT-LOG-01 is only contained in PLATFORM and constrains nothing
//!
//! STORE (feature) contains CATALOG, CHECKOUT;      POL-STORE-PII-01 constrains STORE
//! CATALOG (feature) contains CAT-01, CAT-02, DEC-CAT-SEARCH-01; depends_on PLATFORM
//!                                                   POL-CAT-A11Y-01 constrains CATALOG
//! CHECKOUT (feature) contains CHK-01, CHK-02, DEC-CHK-IDEMP-01; depends_on CATALOG
//!                                                   POL-CHK-PCI-01 constrains CHECKOUT
//! ACCOUNTS (feature) contains ACC-01, ACC-02
//!
//! CAT-01  implements DOM-PRODUCT-01, verified_by PIPE-E2E-01
//! CAT-02  depends_on CAT-01                          POL-CAT-PRICE-01 constrains CAT-02
//! CHK-01  depends_on CAT-02
//! CHK-02  depends_on CHK-01, DEC-CHK-IDEMP-01; implements API-ORDERS-01; verified_by EQ-CHECKOUT-01
//!                                                   DEC-CHK-IDEMP-01 constrains CHK-02
//! ACC-02  depends_on CHK-02
//! DEC-CAT-SEARCH-01 constrains CAT-01, depends_on FND-SEARCH-01
//! API-ORDERS-01 implements DM-ORDER-01
//! DM-ORDER-01 implements API-ORDERS-01 (cycle), DOM-ORDER-01; derived_from ART-ORDER-SCHEMA-01
//! EQ-CHECKOUT-01 verified_by PIPE-E2E-01
//! ```
//!
//! **Platform guidance.** Every node whose R4 walk reaches PLATFORM (all CATALOG and CHECKOUT
//! behaviors, both features, and ACC-02 through its dependency CHK-02) also reaches INFRA
//! (PLATFORM depends_on INFRA) and receives the same five propagated nodes:
//!   DEC-PLAT-STORE-02, DEC-PLAT-EVT-01   decisions in PLATFORM's contains closure (via PLAT-DATA
//!                                        for the store decision: the closure is transitive)
//!   DEC-INFRA-CFG-01                     decision in INFRA's closure
//!   POL-PLAT-TLS-01                      constrains PLATFORM itself
//!   DEC-PLAT-API-01                      constrains DEC-PLAT-EVT-01, a node of the closure
//! and never: DEC-PLAT-STORE-01 (superseded by the propagated DEC-PLAT-STORE-02),
//! POL-PLAT-LOG-01 (merely contained, constrains nothing), PLATFORM, INFRA, PLAT-DATA,
//! FND-PLAT-01 (the layers, closure groupings and hop nodes themselves).
//! DEC-PLAT-EVT-01 is an R4 node at distance 1, so its `depends_on` DEC-MSG-01 joins at depth 2.

use crate::common;

use common::*;

// ============================================================================================
// Spec Graph: CHK-02 "Order Submission"
// (inherited constraints, layer reached through two features, two-path node, implements cycle,
//  derived_from / verified_by chains)
// ============================================================================================

#[test]
fn chk02_depth_1() {
    let dir = copy_fixture(STOREFRONT);
    let v = context(dir.path(), "CHK-02", "1", &[]);
    assert_ids(
        &v,
        &[
            // R1
            "CHK-02",
            // R2: CHECKOUT contains CHK-02, STORE contains CHECKOUT
            "CHECKOUT",
            "STORE",
            // R3: constrains CHK-02 directly (and is also a depends_on target: two reasons)
            "DEC-CHK-IDEMP-01",
            // R3 inherited: constrains the ancestor CHECKOUT / the ancestor STORE
            "POL-CHK-PCI-01",
            "POL-STORE-PII-01",
            // R4: CHK-02 -> CHECKOUT (parent) -> CATALOG (depends_on) -> PLATFORM -> INFRA
            "DEC-PLAT-STORE-02",
            "DEC-PLAT-EVT-01",
            "DEC-INFRA-CFG-01",
            "POL-PLAT-TLS-01",
            "DEC-PLAT-API-01",
            // R5 depth 1: depends_on, implements, verified_by of CHK-02
            "CHK-01",
            "API-ORDERS-01",
            "EQ-CHECKOUT-01",
        ],
    );
    // Kept out: CATALOG (a hop of the layer walk, not an ancestor), POL-CAT-A11Y-01 (constrains
    // CATALOG, which CHK-02 only reaches over depends_on), DEC-PLAT-STORE-01 (superseded),
    // POL-PLAT-LOG-01 (merely contained in the layer), PLATFORM/INFRA (layers are not selected),
    // DEC-MSG-01 (distance 2), ACC-02 (a dependent: inbound depends_on is never followed).
}

#[test]
fn chk02_depth_2() {
    let dir = copy_fixture(STOREFRONT);
    let v = context(dir.path(), "CHK-02", "2", &[]);
    assert_ids(
        &v,
        &[
            // everything of depth 1 (R1-R4 do not depend on the depth)
            "CHK-02",
            "CHECKOUT",
            "STORE",
            "DEC-CHK-IDEMP-01",
            "POL-CHK-PCI-01",
            "POL-STORE-PII-01",
            "DEC-PLAT-STORE-02",
            "DEC-PLAT-EVT-01",
            "DEC-INFRA-CFG-01",
            "POL-PLAT-TLS-01",
            "DEC-PLAT-API-01",
            "CHK-01",
            "API-ORDERS-01",
            "EQ-CHECKOUT-01",
            // R5 distance 2: CHK-01 depends_on CAT-02; API-ORDERS-01 implements DM-ORDER-01;
            // EQ-CHECKOUT-01 verified_by PIPE-E2E-01
            "CAT-02",
            "DM-ORDER-01",
            "PIPE-E2E-01",
            // R5 from an R4 node (distance 1): DEC-PLAT-EVT-01 depends_on DEC-MSG-01
            "DEC-MSG-01",
        ],
    );
    // Kept out (rule: a constraint on a dependency is not inherited): POL-CAT-PRICE-01
    // constrains CAT-02, which is only a forward dependency here.
}

#[test]
fn chk02_full() {
    let dir = copy_fixture(STOREFRONT);
    let v = context(dir.path(), "CHK-02", "full", &[]);
    assert_ids(
        &v,
        &[
            "CHK-02",
            "CHECKOUT",
            "STORE",
            "DEC-CHK-IDEMP-01",
            "POL-CHK-PCI-01",
            "POL-STORE-PII-01",
            "DEC-PLAT-STORE-02",
            "DEC-PLAT-EVT-01",
            "DEC-INFRA-CFG-01",
            "POL-PLAT-TLS-01",
            "DEC-PLAT-API-01",
            "CHK-01",
            "API-ORDERS-01",
            "EQ-CHECKOUT-01",
            "CAT-02",
            "DM-ORDER-01",
            "PIPE-E2E-01",
            "DEC-MSG-01",
            // R5 distance 3: CAT-02 depends_on CAT-01; DM-ORDER-01 implements DOM-ORDER-01 and is
            // derived_from ART-ORDER-SCHEMA-01 (its `implements` back to API-ORDERS-01 closes
            // the cycle and adds nothing)
            "CAT-01",
            "DOM-ORDER-01",
            "ART-ORDER-SCHEMA-01",
            // R5 distance 4: CAT-01 implements DOM-PRODUCT-01 (its verified_by PIPE-E2E-01 is
            // already in)
            "DOM-PRODUCT-01",
        ],
    );
    // Still kept out at full depth: POL-CAT-PRICE-01 (constrains CAT-02), DEC-CAT-SEARCH-01
    // and its FND-SEARCH-01 (DEC-CAT-SEARCH-01 constrains CAT-01, a forward node, and nothing
    // follows `constrains` backwards from forward nodes), POL-CAT-A11Y-01, CATALOG, PLATFORM,
    // INFRA, PLAT-DATA, FND-PLAT-01, DEC-PLAT-STORE-01, POL-PLAT-LOG-01, ACC-01, ACC-02, ACCOUNTS.
}

#[test]
fn chk02_reasons() {
    let dir = copy_fixture(STOREFRONT);
    let v = context(dir.path(), "CHK-02", "full", &[]);

    assert_target_reason(&v, "CHK-02");

    // Two paths, one node: DEC-CHK-IDEMP-01 constrains CHK-02 (R3) and CHK-02 depends_on it (R5).
    assert_eq!(
        reason_pairs(&v, "DEC-CHK-IDEMP-01"),
        pairs(&[("constrains", "inverse"), ("depends_on", "forward")])
    );
    assert_eq!(
        forward_reasons(&v, "DEC-CHK-IDEMP-01"),
        pairs(&[("depends_on", "CHK-02")])
    );

    // Namespace (R2).
    assert_eq!(
        reason_pairs(&v, "CHECKOUT"),
        pairs(&[("contains", "inverse")])
    );
    assert_eq!(reason_pairs(&v, "STORE"), pairs(&[("contains", "inverse")]));

    // Inherited constraints (R3 through contains): `via` names the ancestor that is constrained.
    assert_eq!(
        reason_pairs(&v, "POL-CHK-PCI-01"),
        pairs(&[("constrains", "inverse")])
    );
    assert_inherited_via(&v, "POL-CHK-PCI-01", "CHECKOUT");
    assert_eq!(
        reason_pairs(&v, "POL-STORE-PII-01"),
        pairs(&[("constrains", "inverse")])
    );
    assert_inherited_via(&v, "POL-STORE-PII-01", "STORE");

    // Layer guidance (R4).
    for id in [
        "DEC-PLAT-STORE-02",
        "DEC-PLAT-EVT-01",
        "DEC-INFRA-CFG-01",
        "POL-PLAT-TLS-01",
        "DEC-PLAT-API-01",
    ] {
        assert_only_propagated(&v, id);
    }

    // Forward edges (R5): relation = edge name, `from` = the node the edge leaves.
    assert_eq!(
        reasons(&v, "CHK-01"),
        triples(&[("depends_on", "forward", "CHK-02")])
    );
    assert_eq!(
        reasons(&v, "CAT-02"),
        triples(&[("depends_on", "forward", "CHK-01")])
    );
    assert_eq!(
        reasons(&v, "CAT-01"),
        triples(&[("depends_on", "forward", "CAT-02")])
    );
    assert_eq!(
        reasons(&v, "EQ-CHECKOUT-01"),
        triples(&[("verified_by", "forward", "CHK-02")])
    );
    assert_eq!(
        reasons(&v, "DM-ORDER-01"),
        triples(&[("implements", "forward", "API-ORDERS-01")])
    );
    assert_eq!(
        reasons(&v, "DOM-ORDER-01"),
        triples(&[("implements", "forward", "DM-ORDER-01")])
    );
    assert_eq!(
        reasons(&v, "ART-ORDER-SCHEMA-01"),
        triples(&[("derived_from", "forward", "DM-ORDER-01")])
    );
    assert_eq!(
        reasons(&v, "DOM-PRODUCT-01"),
        triples(&[("implements", "forward", "CAT-01")])
    );
    // Forward from a propagated node.
    assert_eq!(
        reasons(&v, "DEC-MSG-01"),
        triples(&[("depends_on", "forward", "DEC-PLAT-EVT-01")])
    );
    // Reached by two forward paths within full depth (EQ-CHECKOUT-01 at 1, CAT-01 at 3): once,
    // with both reasons.
    assert_eq!(
        reasons(&v, "PIPE-E2E-01"),
        triples(&[
            ("verified_by", "forward", "EQ-CHECKOUT-01"),
            ("verified_by", "forward", "CAT-01")
        ])
    );
    // The implements cycle: API-ORDERS-01 is listed once and keeps its edge from CHK-02 (the
    // cycle's edge back from DM-ORDER-01 may be listed too; that is not asserted here).
    assert!(reasons(&v, "API-ORDERS-01").contains(&(
        "implements".into(),
        "forward".into(),
        "CHK-02".into()
    )));
    assert!(reasons(&v, "API-ORDERS-01")
        .iter()
        .all(|(r, d, _)| r == "implements" && d == "forward"));
}

#[test]
fn chk02_depth_2_reasons_stop_at_the_depth() {
    // At depth 2, CAT-01 (distance 3) is not reached, so PIPE-E2E-01 has only the reason from
    // EQ-CHECKOUT-01, and the cycle edge DM-ORDER-01 -> API-ORDERS-01 (it would leave a node at
    // distance 2) is not followed.
    let dir = copy_fixture(STOREFRONT);
    let v = context(dir.path(), "CHK-02", "2", &[]);
    assert_eq!(
        reasons(&v, "PIPE-E2E-01"),
        triples(&[("verified_by", "forward", "EQ-CHECKOUT-01")])
    );
    assert_eq!(
        reasons(&v, "API-ORDERS-01"),
        triples(&[("implements", "forward", "CHK-02")])
    );
}

#[test]
fn chk02_distances() {
    // Distances (R1 0; R3/R4 1; R5 shortest forward hop count, counting R3/R4 nodes as 1).
    // Namespace nodes have no distance of their own in the rules and are not checked.
    let dir = copy_fixture(STOREFRONT);
    let v = context(dir.path(), "CHK-02", "full", &[]);
    let expected: &[(&str, u64)] = &[
        ("CHK-02", 0),
        ("DEC-CHK-IDEMP-01", 1),
        ("POL-CHK-PCI-01", 1),
        ("POL-STORE-PII-01", 1),
        ("DEC-PLAT-STORE-02", 1),
        ("DEC-PLAT-EVT-01", 1),
        ("DEC-INFRA-CFG-01", 1),
        ("POL-PLAT-TLS-01", 1),
        ("DEC-PLAT-API-01", 1),
        ("CHK-01", 1),
        ("API-ORDERS-01", 1),
        ("EQ-CHECKOUT-01", 1),
        ("CAT-02", 2),
        ("DM-ORDER-01", 2),
        ("PIPE-E2E-01", 2),
        ("DEC-MSG-01", 2),
        ("CAT-01", 3),
        ("DOM-ORDER-01", 3),
        ("ART-ORDER-SCHEMA-01", 3),
        ("DOM-PRODUCT-01", 4),
    ];
    for (id, d) in expected {
        assert_eq!(
            node(&v, id)["distance"].as_u64(),
            Some(*d),
            "distance of {id}"
        );
    }
}

// ============================================================================================
// Spec Graph: CHK-01 "Cart Review" (a constraint on a dependency is not inherited)
// ============================================================================================

#[test]
fn chk01_depth_1() {
    let dir = copy_fixture(STOREFRONT);
    let v = context(dir.path(), "CHK-01", "1", &[]);
    assert_ids(
        &v,
        &[
            "CHK-01",           // R1
            "CHECKOUT",         // R2
            "STORE",            // R2 (transitive)
            "POL-CHK-PCI-01",   // R3 inherited from CHECKOUT
            "POL-STORE-PII-01", // R3 inherited from STORE
            // R4 platform guidance (CHK-01 -> CAT-02 -> CATALOG -> PLATFORM, and via CHECKOUT)
            "DEC-PLAT-STORE-02",
            "DEC-PLAT-EVT-01",
            "DEC-INFRA-CFG-01",
            "POL-PLAT-TLS-01",
            "DEC-PLAT-API-01",
            "CAT-02", // R5: CHK-01 depends_on CAT-02
        ],
    );
    // Kept out: POL-CAT-PRICE-01 constrains CAT-02, the dependency, not CHK-01 or an ancestor;
    // DEC-CHK-IDEMP-01 constrains the sibling CHK-02 only (being in the same feature is not a
    // link); CATALOG and POL-CAT-A11Y-01 (CATALOG is a dependency's parent, not an ancestor).
}

#[test]
fn chk01_depth_2() {
    let dir = copy_fixture(STOREFRONT);
    let v = context(dir.path(), "CHK-01", "2", &[]);
    assert_ids(
        &v,
        &[
            "CHK-01",
            "CHECKOUT",
            "STORE",
            "POL-CHK-PCI-01",
            "POL-STORE-PII-01",
            "DEC-PLAT-STORE-02",
            "DEC-PLAT-EVT-01",
            "DEC-INFRA-CFG-01",
            "POL-PLAT-TLS-01",
            "DEC-PLAT-API-01",
            "CAT-02",
            "CAT-01",     // R5 distance 2: CAT-02 depends_on CAT-01
            "DEC-MSG-01", // R5 distance 2 from the R4 node DEC-PLAT-EVT-01
        ],
    );
    // Kept out: DEC-CAT-SEARCH-01 (constrains CAT-01, a dependency), POL-CAT-PRICE-01.
}

#[test]
fn chk01_full() {
    let dir = copy_fixture(STOREFRONT);
    let v = context(dir.path(), "CHK-01", "full", &[]);
    assert_ids(
        &v,
        &[
            "CHK-01",
            "CHECKOUT",
            "STORE",
            "POL-CHK-PCI-01",
            "POL-STORE-PII-01",
            "DEC-PLAT-STORE-02",
            "DEC-PLAT-EVT-01",
            "DEC-INFRA-CFG-01",
            "POL-PLAT-TLS-01",
            "DEC-PLAT-API-01",
            "CAT-02",
            "CAT-01",
            "DEC-MSG-01",
            // R5 distance 3: CAT-01 implements DOM-PRODUCT-01, verified_by PIPE-E2E-01
            "DOM-PRODUCT-01",
            "PIPE-E2E-01",
        ],
    );
    // Kept out even at full depth: POL-CAT-PRICE-01, DEC-CAT-SEARCH-01, FND-SEARCH-01 (only
    // reachable through constrainers of forward nodes), CHK-02 and everything only it leads to.
}

// ============================================================================================
// Spec Graph: CAT-02 "Price Lookup" (the dependency's own constraint is in its own set)
// ============================================================================================

#[test]
fn cat02_depth_1() {
    let dir = copy_fixture(STOREFRONT);
    let v = context(dir.path(), "CAT-02", "1", &[]);
    assert_ids(
        &v,
        &[
            "CAT-02",           // R1
            "CATALOG",          // R2
            "STORE",            // R2 (transitive)
            "POL-CAT-PRICE-01", // R3 direct: constrains CAT-02
            "POL-CAT-A11Y-01",  // R3 inherited from CATALOG
            "POL-STORE-PII-01", // R3 inherited from STORE
            // R4: CATALOG depends_on PLATFORM
            "DEC-PLAT-STORE-02",
            "DEC-PLAT-EVT-01",
            "DEC-INFRA-CFG-01",
            "POL-PLAT-TLS-01",
            "DEC-PLAT-API-01",
            "CAT-01", // R5: depends_on
        ],
    );
    // Kept out: DEC-CAT-SEARCH-01 constrains CAT-01, the dependency (it is only contained in
    // CATALOG, it does not constrain CATALOG); CHECKOUT, CHK-01 (dependents).
}

#[test]
fn cat02_depth_2_and_full() {
    // The forward chain from CAT-02 ends at distance 2, so depth 2 and full select the same set.
    let expected = [
        "CAT-02",
        "CATALOG",
        "STORE",
        "POL-CAT-PRICE-01",
        "POL-CAT-A11Y-01",
        "POL-STORE-PII-01",
        "DEC-PLAT-STORE-02",
        "DEC-PLAT-EVT-01",
        "DEC-INFRA-CFG-01",
        "POL-PLAT-TLS-01",
        "DEC-PLAT-API-01",
        "CAT-01",
        // R5 distance 2: CAT-01 implements DOM-PRODUCT-01 and is verified_by PIPE-E2E-01
        "DOM-PRODUCT-01",
        "PIPE-E2E-01",
        // R5 distance 2 from DEC-PLAT-EVT-01
        "DEC-MSG-01",
    ];
    let dir = copy_fixture(STOREFRONT);
    for depth in ["2", "full"] {
        let v = context(dir.path(), "CAT-02", depth, &[]);
        assert_ids(&v, &expected);
    }
}

#[test]
fn cat02_reasons() {
    let dir = copy_fixture(STOREFRONT);
    let v = context(dir.path(), "CAT-02", "1", &[]);
    assert_eq!(
        reason_pairs(&v, "POL-CAT-PRICE-01"),
        pairs(&[("constrains", "inverse")])
    );
    assert_eq!(
        reason_pairs(&v, "POL-CAT-A11Y-01"),
        pairs(&[("constrains", "inverse")])
    );
    assert_inherited_via(&v, "POL-CAT-A11Y-01", "CATALOG");
    assert_inherited_via(&v, "POL-STORE-PII-01", "STORE");
    assert_eq!(
        reasons(&v, "CAT-01"),
        triples(&[("depends_on", "forward", "CAT-02")])
    );
}

// ============================================================================================
// Spec Graph: CAT-01 "Product Listing Page" (forward edges of a constrainer)
// ============================================================================================

#[test]
fn cat01_depth_1() {
    let dir = copy_fixture(STOREFRONT);
    let v = context(dir.path(), "CAT-01", "1", &[]);
    assert_ids(
        &v,
        &[
            "CAT-01",            // R1
            "CATALOG",           // R2
            "STORE",             // R2
            "DEC-CAT-SEARCH-01", // R3 direct
            "POL-CAT-A11Y-01",   // R3 via CATALOG
            "POL-STORE-PII-01",  // R3 via STORE
            "DEC-PLAT-STORE-02", // R4 ...
            "DEC-PLAT-EVT-01",
            "DEC-INFRA-CFG-01",
            "POL-PLAT-TLS-01",
            "DEC-PLAT-API-01",
            "DOM-PRODUCT-01", // R5: implements
            "PIPE-E2E-01",    // R5: verified_by
        ],
    );
    // Kept out: FND-SEARCH-01 (distance 2 through the constrainer), POL-CAT-PRICE-01 (constrains
    // the dependent CAT-02), CAT-02.
}

#[test]
fn cat01_depth_2_and_full() {
    let expected = [
        "CAT-01",
        "CATALOG",
        "STORE",
        "DEC-CAT-SEARCH-01",
        "POL-CAT-A11Y-01",
        "POL-STORE-PII-01",
        "DEC-PLAT-STORE-02",
        "DEC-PLAT-EVT-01",
        "DEC-INFRA-CFG-01",
        "POL-PLAT-TLS-01",
        "DEC-PLAT-API-01",
        "DOM-PRODUCT-01",
        "PIPE-E2E-01",
        // R5 from the R3 node DEC-CAT-SEARCH-01 (distance 1): depends_on FND-SEARCH-01
        "FND-SEARCH-01",
        // R5 from the R4 node DEC-PLAT-EVT-01
        "DEC-MSG-01",
    ];
    let dir = copy_fixture(STOREFRONT);
    for depth in ["2", "full"] {
        let v = context(dir.path(), "CAT-01", depth, &[]);
        assert_ids(&v, &expected);
        assert_eq!(
            reasons(&v, "FND-SEARCH-01"),
            triples(&[("depends_on", "forward", "DEC-CAT-SEARCH-01")])
        );
    }
}

// ============================================================================================
// Spec Graph: ACC-02 "Order History" (layer guidance through a dependency's parent feature;
// the dependency's namespace and constrainers are not inherited)
// ============================================================================================

#[test]
fn acc02_depth_1() {
    let dir = copy_fixture(STOREFRONT);
    let v = context(dir.path(), "ACC-02", "1", &[]);
    assert_ids(
        &v,
        &[
            "ACC-02",   // R1
            "ACCOUNTS", // R2 (nothing constrains ACC-02 or ACCOUNTS: no R3 node)
            // R4: ACC-02 -> CHK-02 (depends_on) -> CHECKOUT (its parent feature) -> CATALOG ->
            // PLATFORM -> INFRA. The walk climbs parents at every hop, so a dependency's feature
            // brings its layers.
            "DEC-PLAT-STORE-02",
            "DEC-PLAT-EVT-01",
            "DEC-INFRA-CFG-01",
            "POL-PLAT-TLS-01",
            "DEC-PLAT-API-01",
            "CHK-02", // R5: depends_on
        ],
    );
    // Kept out: CHECKOUT and STORE (namespace of a dependency, not of ACC-02), POL-CHK-PCI-01,
    // POL-STORE-PII-01, DEC-CHK-IDEMP-01 (constraints on the dependency CHK-02 or its
    // ancestors), ACC-01 (a sibling).
}

#[test]
fn acc02_depth_2() {
    let dir = copy_fixture(STOREFRONT);
    let v = context(dir.path(), "ACC-02", "2", &[]);
    assert_ids(
        &v,
        &[
            "ACC-02",
            "ACCOUNTS",
            "DEC-PLAT-STORE-02",
            "DEC-PLAT-EVT-01",
            "DEC-INFRA-CFG-01",
            "POL-PLAT-TLS-01",
            "DEC-PLAT-API-01",
            "CHK-02",
            // R5 distance 2: the forward edges of CHK-02
            "CHK-01",
            "DEC-CHK-IDEMP-01",
            "API-ORDERS-01",
            "EQ-CHECKOUT-01",
            // R5 distance 2 from DEC-PLAT-EVT-01
            "DEC-MSG-01",
        ],
    );
    // DEC-CHK-IDEMP-01 is here only as CHK-02's depends_on target: its `constrains CHK-02`
    // does not make it a constrainer of ACC-02.
    assert_eq!(
        reasons(&v, "DEC-CHK-IDEMP-01"),
        triples(&[("depends_on", "forward", "CHK-02")])
    );
    assert_eq!(
        reasons(&v, "CHK-02"),
        triples(&[("depends_on", "forward", "ACC-02")])
    );
    for id in [
        "DEC-PLAT-STORE-02",
        "DEC-PLAT-EVT-01",
        "DEC-INFRA-CFG-01",
        "POL-PLAT-TLS-01",
        "DEC-PLAT-API-01",
    ] {
        assert_only_propagated(&v, id);
    }
}

#[test]
fn acc02_full() {
    let dir = copy_fixture(STOREFRONT);
    let v = context(dir.path(), "ACC-02", "full", &[]);
    assert_ids(
        &v,
        &[
            "ACC-02",
            "ACCOUNTS",
            "DEC-PLAT-STORE-02",
            "DEC-PLAT-EVT-01",
            "DEC-INFRA-CFG-01",
            "POL-PLAT-TLS-01",
            "DEC-PLAT-API-01",
            "CHK-02",
            "CHK-01",
            "DEC-CHK-IDEMP-01",
            "API-ORDERS-01",
            "EQ-CHECKOUT-01",
            "DEC-MSG-01",
            // R5 distance 3: CAT-02, DM-ORDER-01, PIPE-E2E-01
            "CAT-02",
            "DM-ORDER-01",
            "PIPE-E2E-01",
            // R5 distance 4: CAT-01, DOM-ORDER-01, ART-ORDER-SCHEMA-01
            "CAT-01",
            "DOM-ORDER-01",
            "ART-ORDER-SCHEMA-01",
            // R5 distance 5: DOM-PRODUCT-01
            "DOM-PRODUCT-01",
        ],
    );
    // Kept out at any depth: CHECKOUT, STORE, POL-CHK-PCI-01, POL-STORE-PII-01,
    // POL-CAT-PRICE-01, DEC-CAT-SEARCH-01, FND-SEARCH-01, ACC-01.
}

// ============================================================================================
// Spec Graph: CHECKOUT (a feature as target: `contains` is never followed forward, and a layer
// reached over depends_on IS selected, by R5)
// ============================================================================================

#[test]
fn checkout_depth_1() {
    let dir = copy_fixture(STOREFRONT);
    let v = context(dir.path(), "CHECKOUT", "1", &[]);
    assert_ids(
        &v,
        &[
            "CHECKOUT",         // R1
            "STORE",            // R2
            "POL-CHK-PCI-01",   // R3 direct
            "POL-STORE-PII-01", // R3 via STORE
            // R4: CHECKOUT -> CATALOG -> PLATFORM -> INFRA
            "DEC-PLAT-STORE-02",
            "DEC-PLAT-EVT-01",
            "DEC-INFRA-CFG-01",
            "POL-PLAT-TLS-01",
            "DEC-PLAT-API-01",
            "CATALOG", // R5: depends_on (a hop of R4, but selected by R5)
        ],
    );
    // Kept out: CHK-01, CHK-02, DEC-CHK-IDEMP-01 (children: outbound `contains` is not followed),
    // POL-CAT-A11Y-01 (constrains the dependency CATALOG).
}

#[test]
fn checkout_depth_2() {
    let dir = copy_fixture(STOREFRONT);
    let v = context(dir.path(), "CHECKOUT", "2", &[]);
    assert_ids(
        &v,
        &[
            "CHECKOUT",
            "STORE",
            "POL-CHK-PCI-01",
            "POL-STORE-PII-01",
            "DEC-PLAT-STORE-02",
            "DEC-PLAT-EVT-01",
            "DEC-INFRA-CFG-01",
            "POL-PLAT-TLS-01",
            "DEC-PLAT-API-01",
            "CATALOG",
            "PLATFORM",   // R5 distance 2: CATALOG depends_on PLATFORM
            "DEC-MSG-01", // R5 distance 2 from DEC-PLAT-EVT-01
        ],
    );
    assert_eq!(
        reasons(&v, "PLATFORM"),
        triples(&[("depends_on", "forward", "CATALOG")])
    );
    // PLATFORM's children are still not selected: contains is not followed (POL-PLAT-LOG-01,
    // PLAT-DATA, DEC-PLAT-STORE-01 stay out).
}

#[test]
fn checkout_full() {
    let dir = copy_fixture(STOREFRONT);
    let v = context(dir.path(), "CHECKOUT", "full", &[]);
    assert_ids(
        &v,
        &[
            "CHECKOUT",
            "STORE",
            "POL-CHK-PCI-01",
            "POL-STORE-PII-01",
            "DEC-PLAT-STORE-02",
            "DEC-PLAT-EVT-01",
            "DEC-INFRA-CFG-01",
            "POL-PLAT-TLS-01",
            "DEC-PLAT-API-01",
            "CATALOG",
            "PLATFORM",
            "DEC-MSG-01",
            // R5 distance 3: PLATFORM depends_on INFRA and FND-PLAT-01
            "INFRA",
            "FND-PLAT-01",
        ],
    );
    // DEC-INFRA-CFG-01 is not reached again by contains from INFRA; it is in by R4 only.
    assert_only_propagated(&v, "DEC-INFRA-CFG-01");
}

// ============================================================================================
// Spec Graph: API-ORDERS-01 (an `implements` cycle terminates)
// ============================================================================================

#[test]
fn api_orders_cycle_depth_1() {
    let dir = copy_fixture(STOREFRONT);
    let v = context(dir.path(), "API-ORDERS-01", "1", &[]);
    // R1; no namespace, no constrainers, no layers (no parents, no depends_on);
    // R5: API-ORDERS-01 implements DM-ORDER-01.
    assert_ids(&v, &["API-ORDERS-01", "DM-ORDER-01"]);
}

#[test]
fn api_orders_cycle_depth_2_and_full() {
    // R5 distance 2: DM-ORDER-01 implements DOM-ORDER-01, derived_from ART-ORDER-SCHEMA-01;
    // its `implements API-ORDERS-01` leads back to the target, which stays listed once.
    // Kept out: CHK-02 (implements API-ORDERS-01: inbound implements is never followed).
    let dir = copy_fixture(STOREFRONT);
    for depth in ["2", "full"] {
        let v = context(dir.path(), "API-ORDERS-01", depth, &[]);
        assert_ids(
            &v,
            &[
                "API-ORDERS-01",
                "DM-ORDER-01",
                "DOM-ORDER-01",
                "ART-ORDER-SCHEMA-01",
            ],
        );
        assert!(
            reasons(&v, "API-ORDERS-01")
                .iter()
                .any(|(r, _, _)| r == "target"),
            "the target keeps its target reason"
        );
        assert_eq!(node(&v, "API-ORDERS-01")["distance"].as_u64(), Some(0));
    }
}

// ============================================================================================
// Spec Graph: node metadata in the JSON view
// ============================================================================================

#[test]
fn storefront_kinds_titles_and_detail() {
    let dir = copy_fixture(STOREFRONT);
    let v = context(dir.path(), "CHK-02", "full", &[]);
    for (id, kind) in [
        ("CHK-02", "behavior"),
        ("CHECKOUT", "feature"),
        ("DEC-CHK-IDEMP-01", "decision"),
        ("POL-CHK-PCI-01", "policy"),
        ("DOM-ORDER-01", "domain"),
        ("API-ORDERS-01", "api_contract"),
        ("DM-ORDER-01", "data_model"),
        ("ART-ORDER-SCHEMA-01", "artifact"),
        ("EQ-CHECKOUT-01", "equivalence_contract"),
        ("PIPE-E2E-01", "pipeline"),
    ] {
        assert_eq!(node(&v, id)["kind"], kind, "kind of {id}");
    }
    assert_eq!(node(&v, "CHK-02")["title"], "Order Submission");
    assert_eq!(
        node(&v, "DEC-PLAT-STORE-02")["title"],
        "PostgreSQL 16 as System of Record"
    );
    // With a budget far above the material, nothing is degraded below the requested detail.
    for n in v["nodes"].as_array().unwrap() {
        assert_eq!(n["detail"], "full", "detail of {}", n["id"]);
    }

    let v = context(dir.path(), "CHECKOUT", "full", &[]);
    assert_eq!(node(&v, "PLATFORM")["kind"], "layer");
    assert_eq!(node(&v, "FND-PLAT-01")["kind"], "foundation");
}

// ============================================================================================
// Artifacts (.contextia layout): tests/fixtures/contextia-payments
//
//   TASK-014         specs: [SPEC-PAY-002, SPEC-PAY-001]
//   TASK-009         specs: [SPEC-PAY-001]                       (another task: never pulled in)
//   SPEC-PAY-002     links: [SPEC-PAY-001, DEC-PAY-003]          (flat list)
//   SPEC-PAY-001     links: {decisions: [DEC-PAY-001], norms: [NORM-API-002],
//                            specs: [SPEC-LEDGER-001]}           (map)
//   SPEC-LEDGER-001  specs: [SPEC-PAY-001] (cycle), decisions: [DEC-LEDGER-001]
//   DEC-PAY-003      decisions: [DEC-PAY-002]                    (decision -> decision)
//   DEC-PAY-002      norms: [NORM-SEC-001]
//   NORM-MONEY-001   constrains: [SPEC-LEDGER-001]               (Spec Graph meaning: inverse)
//   DEC-PAY-001, DEC-LEDGER-001, NORM-API-002, NORM-SEC-001: no links
//   IDENTITY (.contextia/system/identity.md): always selected unless --no-identity
// ============================================================================================

#[test]
fn task014_depth_1() {
    let dir = copy_fixture(PAYMENTS);
    let v = context(dir.path(), "TASK-014", "1", &[]);
    // IDENTITY always; TASK-014 the target; its two `specs`.
    assert_ids(
        &v,
        &["IDENTITY", "TASK-014", "SPEC-PAY-002", "SPEC-PAY-001"],
    );
    assert_eq!(
        reasons(&v, "SPEC-PAY-001"),
        triples(&[("specs", "forward", "TASK-014")])
    );
    assert_eq!(
        reasons(&v, "SPEC-PAY-002"),
        triples(&[("specs", "forward", "TASK-014")])
    );
}

#[test]
fn task014_depth_2() {
    let dir = copy_fixture(PAYMENTS);
    let v = context(dir.path(), "TASK-014", "2", &[]);
    assert_ids(
        &v,
        &[
            "IDENTITY",
            "TASK-014",
            "SPEC-PAY-002",
            "SPEC-PAY-001",
            // distance 2 from SPEC-PAY-002's flat links (SPEC-PAY-001 is already in)
            "DEC-PAY-003",
            // distance 2 from SPEC-PAY-001's map links
            "DEC-PAY-001",
            "NORM-API-002",
            "SPEC-LEDGER-001",
        ],
    );
    // Linked from two places within depth 2: listed once, both reasons.
    assert_eq!(
        reasons(&v, "SPEC-PAY-001"),
        triples(&[
            ("specs", "forward", "TASK-014"),
            ("links", "forward", "SPEC-PAY-002")
        ])
    );
    assert_eq!(
        reasons(&v, "DEC-PAY-003"),
        triples(&[("links", "forward", "SPEC-PAY-002")])
    );
    // Map-form links: the relation name (`links` or the map key) is not fixed by the rules;
    // direction and origin are.
    for id in ["DEC-PAY-001", "NORM-API-002", "SPEC-LEDGER-001"] {
        let rs = reasons(&v, id);
        assert_eq!(rs.len(), 1, "{id}: {rs:?}");
        let (_, d, from) = rs.iter().next().unwrap();
        assert_eq!(
            (d.as_str(), from.as_str()),
            ("forward", "SPEC-PAY-001"),
            "{id}"
        );
    }
}

#[test]
fn task014_full() {
    let dir = copy_fixture(PAYMENTS);
    let v = context(dir.path(), "TASK-014", "full", &[]);
    assert_ids(
        &v,
        &[
            "IDENTITY",
            "TASK-014",
            "SPEC-PAY-002",
            "SPEC-PAY-001",
            "DEC-PAY-003",
            "DEC-PAY-001",
            "NORM-API-002",
            "SPEC-LEDGER-001",
            // distance 3: DEC-PAY-003 decisions -> DEC-PAY-002; SPEC-LEDGER-001 decisions ->
            // DEC-LEDGER-001 (its specs -> SPEC-PAY-001 closes the cycle)
            "DEC-PAY-002",
            "DEC-LEDGER-001",
            // distance 4: DEC-PAY-002 norms -> NORM-SEC-001
            "NORM-SEC-001",
        ],
    );
    // Kept out: TASK-009 (links to SPEC-PAY-001; inbound links are not followed) and
    // NORM-MONEY-001 (constrains SPEC-LEDGER-001, a forward node: a constraint on a linked node
    // is not inherited, exactly as in a Spec Graph).
    let identity: Vec<String> = reasons(&v, "IDENTITY")
        .into_iter()
        .map(|(r, _, _)| r)
        .collect();
    assert_eq!(
        identity,
        ["identity"],
        "IDENTITY's reasons must be [{{\"relation\":\"identity\"}}]"
    );
    assert_target_reason(&v, "TASK-014");
    assert_eq!(
        reasons(&v, "DEC-PAY-002"),
        triples(&[("decisions", "forward", "DEC-PAY-003")])
    );
    assert_eq!(
        reasons(&v, "NORM-SEC-001"),
        triples(&[("norms", "forward", "DEC-PAY-002")])
    );
    assert_eq!(
        reasons(&v, "DEC-LEDGER-001"),
        triples(&[("decisions", "forward", "SPEC-LEDGER-001")])
    );
    // Three edges bring SPEC-PAY-001 within full depth: from the task, from SPEC-PAY-002's
    // flat links, and back from SPEC-LEDGER-001 (`specs`).
    let from: std::collections::BTreeSet<String> = forward_reasons(&v, "SPEC-PAY-001")
        .into_iter()
        .map(|(_, f)| f)
        .collect();
    assert_eq!(
        from,
        ["SPEC-LEDGER-001", "SPEC-PAY-002", "TASK-014"]
            .iter()
            .map(|s| s.to_string())
            .collect()
    );
}

#[test]
fn task014_no_identity() {
    let dir = copy_fixture(PAYMENTS);
    let v = context(dir.path(), "TASK-014", "full", &["--no-identity"]);
    assert_ids(
        &v,
        &[
            "TASK-014",
            "SPEC-PAY-002",
            "SPEC-PAY-001",
            "DEC-PAY-003",
            "DEC-PAY-001",
            "NORM-API-002",
            "SPEC-LEDGER-001",
            "DEC-PAY-002",
            "DEC-LEDGER-001",
            "NORM-SEC-001",
        ],
    );
}

#[test]
fn spec_ledger_constrained_by_norm_depth_1() {
    let dir = copy_fixture(PAYMENTS);
    let v = context(dir.path(), "SPEC-LEDGER-001", "1", &[]);
    assert_ids(
        &v,
        &[
            "IDENTITY",
            "SPEC-LEDGER-001", // target
            "SPEC-PAY-001",    // specs (one half of the spec cycle)
            "DEC-LEDGER-001",  // decisions
            "NORM-MONEY-001",  // `constrains: [SPEC-LEDGER-001]` keeps its Spec Graph meaning
        ],
    );
    assert_eq!(
        reason_pairs(&v, "NORM-MONEY-001"),
        pairs(&[("constrains", "inverse")])
    );
    assert_eq!(
        reasons(&v, "SPEC-PAY-001"),
        triples(&[("specs", "forward", "SPEC-LEDGER-001")])
    );
    assert_eq!(
        reasons(&v, "DEC-LEDGER-001"),
        triples(&[("decisions", "forward", "SPEC-LEDGER-001")])
    );
}

#[test]
fn spec_ledger_constrained_by_norm_depth_2_and_full() {
    // distance 2: SPEC-PAY-001's map links add DEC-PAY-001 and NORM-API-002; its link back to
    // SPEC-LEDGER-001 (the target) closes the cycle. Kept out: SPEC-PAY-002 and both tasks
    // (they link to SPEC-PAY-001; inbound links are not followed).
    let dir = copy_fixture(PAYMENTS);
    for depth in ["2", "full"] {
        let v = context(dir.path(), "SPEC-LEDGER-001", depth, &[]);
        assert_ids(
            &v,
            &[
                "IDENTITY",
                "SPEC-LEDGER-001",
                "SPEC-PAY-001",
                "DEC-LEDGER-001",
                "NORM-MONEY-001",
                "DEC-PAY-001",
                "NORM-API-002",
            ],
        );
        assert_eq!(node(&v, "SPEC-LEDGER-001")["distance"].as_u64(), Some(0));
    }
}

#[test]
fn spec_pay002_depths() {
    let dir = copy_fixture(PAYMENTS);
    // depth 1: the flat links list.
    let v = context(dir.path(), "SPEC-PAY-002", "1", &[]);
    assert_ids(
        &v,
        &["IDENTITY", "SPEC-PAY-002", "SPEC-PAY-001", "DEC-PAY-003"],
    );
    // depth 2: SPEC-PAY-001's map links and DEC-PAY-003's decision link.
    let v = context(dir.path(), "SPEC-PAY-002", "2", &[]);
    assert_ids(
        &v,
        &[
            "IDENTITY",
            "SPEC-PAY-002",
            "SPEC-PAY-001",
            "DEC-PAY-003",
            "DEC-PAY-001",
            "NORM-API-002",
            "SPEC-LEDGER-001",
            "DEC-PAY-002",
        ],
    );
    // full: distance 3 adds DEC-LEDGER-001 (from SPEC-LEDGER-001) and NORM-SEC-001 (from
    // DEC-PAY-002). NORM-MONEY-001 stays out (constrains a forward node), TASK-014 stays out.
    let v = context(dir.path(), "SPEC-PAY-002", "full", &[]);
    assert_ids(
        &v,
        &[
            "IDENTITY",
            "SPEC-PAY-002",
            "SPEC-PAY-001",
            "DEC-PAY-003",
            "DEC-PAY-001",
            "NORM-API-002",
            "SPEC-LEDGER-001",
            "DEC-PAY-002",
            "DEC-LEDGER-001",
            "NORM-SEC-001",
        ],
    );
}

#[test]
fn payments_kinds() {
    let dir = copy_fixture(PAYMENTS);
    let v = context(dir.path(), "TASK-014", "full", &[]);
    for (id, kind) in [
        ("IDENTITY", "identity"),
        ("TASK-014", "task"),
        ("SPEC-PAY-001", "spec"),
        ("DEC-PAY-003", "decision"),
        ("NORM-SEC-001", "norm"),
    ] {
        assert_eq!(node(&v, id)["kind"], kind, "kind of {id}");
    }
    assert_eq!(node(&v, "TASK-014")["title"], "Refund a captured payment");
}

// ============================================================================================
// Determinism: same inputs, byte-identical output; file timestamps and a warm or stale cache
// change nothing.
// ============================================================================================

fn context_stdout(root: &std::path::Path, target: &str, budget: &str) -> (i32, String) {
    let (code, stdout, _) = run(&[
        "context",
        target,
        "--root",
        root.to_str().unwrap(),
        "--depth",
        "full",
        "--budget",
        budget,
        "--format",
        "json",
    ]);
    (code, stdout)
}

/// Rewrites every project file with its own bytes (new mtimes), in reverse path order so the
/// mtime order differs from the path order too.
fn rewrite_all(root: &std::path::Path) {
    let mut files = project_files(root);
    files.reverse();
    for f in files {
        let bytes = std::fs::read(&f).unwrap();
        std::fs::write(&f, bytes).unwrap();
    }
}

fn check_deterministic(fixture: &str, target: &str) {
    for budget in ["100000", "2000"] {
        let a = copy_fixture(fixture);
        let first = context_stdout(a.path(), target, budget);
        if budget == "100000" {
            assert_eq!(first.0, 0, "brief context {target} failed");
        }
        // Same directory again (the derived index is warm now).
        let second = context_stdout(a.path(), target, budget);
        assert_eq!(
            first, second,
            "{target} budget {budget}: second run differs"
        );
        // Same directory after every file was rewritten (the cache looks stale).
        std::thread::sleep(std::time::Duration::from_millis(1100));
        rewrite_all(a.path());
        let third = context_stdout(a.path(), target, budget);
        assert_eq!(
            first, third,
            "{target} budget {budget}: output changed after files were touched"
        );
        // A fresh copy elsewhere, touched before the first run.
        let b = copy_fixture(fixture);
        std::thread::sleep(std::time::Duration::from_millis(1100));
        rewrite_all(b.path());
        let fourth = context_stdout(b.path(), target, budget);
        assert_eq!(
            first, fourth,
            "{target} budget {budget}: output differs in a copied, touched project"
        );
    }
}

#[test]
fn deterministic_specgraph() {
    check_deterministic(STOREFRONT, "CHK-02");
}

#[test]
fn deterministic_artifacts() {
    check_deterministic(PAYMENTS, "TASK-014");
}
