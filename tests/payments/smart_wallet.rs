//! Payments from smart wallets (`contracts/src/SmartWallet.sol`: an ERC-1271 wallet of one owner
//! key, made by a CREATE2 factory). A wallet that does not exist yet signs with ERC-6492: its
//! owner's signature wrapped with the factory call that deploys it. agentrep checks it by
//! simulating the deployment and the transfer in one deployless `eth_call`, and settles it by
//! sending the factory call (only to a listed factory), then the transfer.

use agentrep_payments::verify::{WalletDeployment, wrap_erc6492};
use agentrep_tests::chain::paychain::{SmartWallet, WALLET_FACTORY};
use alloy::primitives::address;

use agentrep_tests::buyers::run_buyer as buyer;

use super::*;

/// A v2 payment from `wallet` signed by `signer` (its owner, or not), wrapped with `deployment`
/// when given.
fn wallet_header(
    signer: &PrivateKeySigner,
    p: &Payment,
    accepted: &Value,
    deployment: Option<&WalletDeployment>,
) -> String {
    let own = sign_authorization(signer, &p.message());
    let signature = match deployment {
        Some(d) => wrap_erc6492(&own, d),
        None => own,
    };
    v2_header_with(&signature, p, accepted, None)
}

async fn funded_wallet(chain: &PayChain, factory: Address) -> SmartWallet {
    let wallet = chain.smart_wallet(factory).await.unwrap();
    chain.fund(wallet.address, 1_000_000).await.unwrap();
    assert!(!chain.has_code(wallet.address).await.unwrap(), "counterfactual: no code yet");
    wallet
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_official_buyer_pays_from_a_wallet_that_does_not_exist_yet() {
    let audit = audit_deployment(Settle::Direct).await;
    let Audit { chain, url, accepted, .. } = &audit;
    let wallet = funded_wallet(chain, WALLET_FACTORY).await;
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("payments/clients/x402_fetch_v2.mjs");
    let args = [
        script.display().to_string(),
        url.clone(),
        key_hex(&wallet.owner),
        wallet.address.to_string(),
        wallet.deployment.factory.to_string(),
        alloy::hex::encode_prefixed(&wallet.deployment.calldata),
    ];
    let out = tokio::task::spawn_blocking(move || {
        buyer(Path::new("node"), &args.iter().map(String::as_str).collect::<Vec<_>>())
    })
    .await
    .unwrap();
    assert_eq!(out["status"], 200, "{out}");
    assert_eq!(out["settlement"]["success"], true, "{out}");
    assert_eq!(
        out["settlement"]["payer"].as_str().map(str::to_lowercase),
        Some(alloy::hex::encode_prefixed(wallet.address)),
        "the wallet paid, not its owner"
    );
    assert!(chain.has_code(wallet.address).await.unwrap(), "the relayer deployed the wallet before settling");
    assert_eq!(chain.balance(wallet.address).await.unwrap(), U256::from(1_000_000 - PRICE));
    assert_eq!(chain.balance(wallet.owner.address()).await.unwrap(), U256::ZERO);
    // Deployed now: it pays with its owner's plain signature (ERC-1271, as a one-owner Safe signs),
    // and with a wrapped one (the wallet exists, so nothing is deployed again).
    for deployment in [None, Some(&wallet.deployment)] {
        let header = wallet_header(&wallet.owner, &Payment::new(wallet.address, chain.pay_to), accepted, deployment);
        let paid = pay(url, ("payment-signature", &header)).await;
        assert_eq!(paid.status, StatusCode::OK, "{:?} {}", paid.error, paid.body);
        assert_eq!(paid.settlement.as_ref().unwrap()["success"], true);
    }
    assert_eq!(chain.balance(wallet.address).await.unwrap(), U256::from(1_000_000 - 3 * PRICE));
    assert_eq!(chain.balance(chain.pay_to).await.unwrap(), U256::from(3 * PRICE));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn smart_wallet_attacks_get_no_answer_and_move_no_money() {
    let audit = audit_deployment(Settle::Direct).await;
    let Audit { chain, url, accepted, store, .. } = &audit;
    let refused = |paid: &Answer, reason: &str| {
        assert_eq!(paid.status, StatusCode::PAYMENT_REQUIRED, "{}", paid.body);
        assert_eq!(paid.error.as_deref(), Some(reason), "{}", paid.body);
    };

    // A wallet of a factory the deployment does not list: the relayer never calls it.
    let rogue = address!("0x00000000000000000000000000000000000fac71");
    chain.place_wallet_factory(rogue).await.unwrap();
    let wallet = funded_wallet(chain, rogue).await;
    let p = Payment::new(wallet.address, chain.pay_to);
    let paid =
        pay(url, ("payment-signature", &wallet_header(&wallet.owner, &p, accepted, Some(&wallet.deployment)))).await;
    refused(&paid, "eip6492_factory_not_allowed");
    assert!(!chain.has_code(wallet.address).await.unwrap());

    // A listed factory, but someone else signs for the wallet.
    let wallet = funded_wallet(chain, WALLET_FACTORY).await;
    let thief = PrivateKeySigner::random();
    let p = Payment::new(wallet.address, chain.pay_to);
    let paid = pay(url, ("payment-signature", &wallet_header(&thief, &p, accepted, Some(&wallet.deployment)))).await;
    refused(&paid, "invalid_exact_evm_payload_signature");

    // The thief's own wallet deployment under the victim wallet's name: the wallet that signed is
    // not the payer.
    let thiefs = chain.smart_wallet(WALLET_FACTORY).await.unwrap();
    let p = Payment::new(wallet.address, chain.pay_to);
    let paid =
        pay(url, ("payment-signature", &wallet_header(&thiefs.owner, &p, accepted, Some(&thiefs.deployment)))).await;
    refused(&paid, "invalid_exact_evm_payload_signature");

    // A factory call that reverts.
    let broken = WalletDeployment { factory: WALLET_FACTORY, calldata: vec![0xde, 0xad, 0xbe, 0xef].into() };
    let p = Payment::new(wallet.address, chain.pay_to);
    let paid = pay(url, ("payment-signature", &wallet_header(&wallet.owner, &p, accepted, Some(&broken)))).await;
    refused(&paid, "smart_wallet_deployment_failed");

    // The owner's plain signature while the wallet does not exist: the payer has no code, so the
    // signature must be the payer's own, and it is not.
    let p = Payment::new(wallet.address, chain.pay_to);
    let paid = pay(url, ("payment-signature", &wallet_header(&wallet.owner, &p, accepted, None))).await;
    refused(&paid, "invalid_exact_evm_payload_signature");

    assert!(!chain.has_code(wallet.address).await.unwrap(), "nothing was deployed");
    assert_eq!(chain.balance(wallet.address).await.unwrap(), U256::from(1_000_000));
    assert_eq!(chain.balance(chain.pay_to).await.unwrap(), U256::ZERO);
    let ledger = agentrep_store::Store::open(store).unwrap();
    assert_eq!(ledger.revenue().unwrap().settled, 0);
    assert!(ledger.open_payments().unwrap().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_official_facilitator_deploys_and_settles_a_wallet_that_does_not_exist_yet() {
    let audit = audit_deployment(Settle::Facilitator(FacilitatorFault::None, Duration::from_secs(10))).await;
    let Audit { chain, url, accepted, store, .. } = &audit;
    let wallet = funded_wallet(chain, WALLET_FACTORY).await;
    let p = Payment::new(wallet.address, chain.pay_to);
    let paid =
        pay(url, ("payment-signature", &wallet_header(&wallet.owner, &p, accepted, Some(&wallet.deployment)))).await;
    assert_eq!(paid.status, StatusCode::OK, "{:?} {}", paid.error, paid.body);
    assert_eq!(paid.settlement.as_ref().unwrap()["success"], true);
    assert!(chain.has_code(wallet.address).await.unwrap(), "the facilitator deployed the wallet");
    assert_eq!(chain.balance(wallet.address).await.unwrap(), U256::from(1_000_000 - PRICE));
    assert_eq!(chain.balance(chain.pay_to).await.unwrap(), U256::from(PRICE));
    assert_eq!(settled_state(store, Duration::ZERO).await, vec![PaymentState::Settled]);
}
