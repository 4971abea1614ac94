//! Every settlement form on a real node: anvil with the USDC double and the doubles of the x402
//! Permit2 proxies, the batch settlement contract and the auth-capture escrow at their published
//! addresses (`contracts/src/SettlementForms.sol`: the published events, calldata shapes and
//! hashes), one listed seller paid in each form by hand-made transactions, then `agentrep ingest
//! --source settlements` as an operator runs it. The lake must hold each settlement with its true
//! payer (never the escrow or the batch contract), the amount that reached the seller, its form,
//! who relayed it and the builder codes on its calldata; the escrow's outcomes in `escrow_events`;
//! and the batch sweep counted once, at its claims. Then `--source funding`: a seller first paid
//! through the escrow was funded by the payment's payer, and a channel's sweep funds nobody.

use std::collections::BTreeSet;

use agentrep_lake::datasets::{EscrowEventRow, FundingRow, ListingRow, SettlementRow};
use agentrep_lake::{EscrowAction, Lake, SettlementForm, Timestamp};
use agentrep_tests::agentrep_binary;
use agentrep_tests::chain::contracts::{
    AUTH_CAPTURE_ESCROW, BATCH_SETTLEMENT, EXACT_PERMIT2_PROXY, IFiatToken, ISettlementForms, PLACED,
    UPTO_PERMIT2_PROXY, USDC,
};
use agentrep_tests::chain::paychain::{PayChain, WALLET_FACTORY};
use agentrep_tests::replayed::read_dated;
use alloy::primitives::{Address, B256, Bytes, U256, address};
use alloy::signers::local::PrivateKeySigner;
use alloy::sol_types::SolCall;

/// `{"a": "shop", "w": "fac_one", "s": ["cli_x"]}` as an ERC-8021 schema-2 suffix.
fn builder_suffix() -> Vec<u8> {
    let mut cbor = vec![0xa3, 0x61, b'a', 0x64];
    cbor.extend(b"shop");
    cbor.extend([0x61, b'w', 0x67]);
    cbor.extend(b"fac_one");
    cbor.extend([0x61, b's', 0x81, 0x65]);
    cbor.extend(b"cli_x");
    let mut suffix = cbor.clone();
    suffix.extend((cbor.len() as u16).to_be_bytes());
    suffix.push(2);
    suffix.extend([0x80, 0x21].repeat(8));
    suffix
}

fn payment(operator: Address, payer: Address, receiver: Address, salt: u64) -> ISettlementForms::PaymentInfo {
    ISettlementForms::PaymentInfo {
        operator,
        payer,
        receiver,
        token: USDC,
        maxAmount: alloy::primitives::Uint::from(1_000_000u64),
        preApprovalExpiry: alloy::primitives::Uint::from(u64::from(u32::MAX)),
        authorizationExpiry: alloy::primitives::Uint::from(u64::from(u32::MAX)),
        refundExpiry: alloy::primitives::Uint::from(u64::from(u32::MAX)),
        minFeeBps: 0,
        maxFeeBps: 1_000,
        feeReceiver: Address::ZERO,
        salt: U256::from(salt),
    }
}

fn voucher(config: &ISettlementForms::ChannelConfig, total: u128) -> ISettlementForms::VoucherClaim {
    ISettlementForms::VoucherClaim {
        voucher: ISettlementForms::Voucher { channel: config.clone(), maxClaimableAmount: 1_000_000 },
        signature: Bytes::from(vec![1u8; 65]),
        totalClaimed: total,
    }
}

fn hex(a: Address) -> String {
    format!("{a:#x}")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_settlement_form_is_read_with_its_true_payer() {
    let chain = PayChain::start().await.expect("anvil starts");
    for double in PLACED.iter().filter(|p| p.name.ends_with("Double")) {
        chain.anvil.set_code(double.address, &double.runtime_code()).await.expect("placed");
    }
    let seller = address!("0x5e11e40000000000000000000000000000000001");
    // Sellers whose first USDC is an escrow charge, and a channel's sweep.
    let (escrowed, swept) = (
        address!("0x5e11e40000000000000000000000000000000002"),
        address!("0x5e11e40000000000000000000000000000000003"),
    );
    let facilitator = address!("0xfac1000000000000000000000000000000000001");
    let payers: Vec<PrivateKeySigner> = (0..7).map(|_| PrivateKeySigner::random()).collect();
    for who in payers.iter().map(PrivateKeySigner::address).chain([facilitator, seller]) {
        chain.anvil.set_balance(who, U256::from(10u128.pow(20))).await.expect("gas");
        chain.fund(who, 1_000_000).await.expect("funded");
    }
    let approve = |spender| IFiatToken::approveCall { spender, value: U256::MAX }.abi_encode();
    let send = |from: Address, to: Address, data: Vec<u8>| {
        let chain = &chain;
        async move { chain.send_to(from, to, &data).await.expect("mined") }
    };
    let p = |i: usize| payers[i].address();

    // EIP-3009, relayed: the baseline.
    chain.settle_as_relayer(&payers[0], seller, 10_000).await.expect("settled");
    // The exact and upto Permit2 proxies, sent by the facilitator; the exact one with builder codes.
    send(p(1), USDC, approve(EXACT_PERMIT2_PROXY)).await;
    let mut exact =
        ISettlementForms::settle_0Call { owner: p(1), to: seller, amount: U256::from(20_000u64) }.abi_encode();
    exact.extend(builder_suffix());
    send(facilitator, EXACT_PERMIT2_PROXY, exact).await;
    send(p(2), USDC, approve(UPTO_PERMIT2_PROXY)).await;
    let upto = ISettlementForms::settle_0Call { owner: p(2), to: seller, amount: U256::from(5_000u64) }.abi_encode();
    send(facilitator, UPTO_PERMIT2_PROXY, upto).await;
    // The escrow: an authorization captured with a 1 % fee and partly refunded, one voided, one
    // charge. The operator is the facilitator.
    send(p(3), USDC, approve(AUTH_CAPTURE_ESCROW)).await;
    send(facilitator, USDC, approve(AUTH_CAPTURE_ESCROW)).await;
    let captured = payment(facilitator, p(3), seller, 1);
    let authorize = |info: &ISettlementForms::PaymentInfo, amount: u64| {
        ISettlementForms::authorizeCall {
            paymentInfo: info.clone(),
            amount: U256::from(amount),
            tokenCollector: Address::ZERO,
            collectorData: Bytes::new(),
        }
        .abi_encode()
    };
    send(facilitator, AUTH_CAPTURE_ESCROW, authorize(&captured, 30_000)).await;
    let capture = ISettlementForms::captureCall {
        paymentInfo: captured.clone(),
        amount: U256::from(30_000u64),
        feeBps: 100,
        feeReceiver: facilitator,
    };
    send(facilitator, AUTH_CAPTURE_ESCROW, capture.abi_encode()).await;
    let refund = ISettlementForms::refundCall {
        paymentInfo: captured.clone(),
        amount: U256::from(5_000u64),
        tokenCollector: Address::ZERO,
        collectorData: Bytes::new(),
    };
    send(facilitator, AUTH_CAPTURE_ESCROW, refund.abi_encode()).await;
    let voided = payment(facilitator, p(3), seller, 2);
    send(facilitator, AUTH_CAPTURE_ESCROW, authorize(&voided, 7_000)).await;
    send(facilitator, AUTH_CAPTURE_ESCROW, ISettlementForms::voidCall { paymentInfo: voided.clone() }.abi_encode())
        .await;
    send(p(4), USDC, approve(AUTH_CAPTURE_ESCROW)).await;
    let charge = ISettlementForms::chargeCall {
        paymentInfo: payment(facilitator, p(4), seller, 3),
        amount: U256::from(8_000u64),
        tokenCollector: Address::ZERO,
        collectorData: Bytes::new(),
        feeBps: 0,
        feeReceiver: Address::ZERO,
    };
    send(facilitator, AUTH_CAPTURE_ESCROW, charge.abi_encode()).await;
    // A payment channel: a deposit, a claim and the sweep in one multicall, a second claim, the
    // sweep on its own.
    send(p(5), USDC, approve(BATCH_SETTLEMENT)).await;
    let channel = ISettlementForms::ChannelConfig {
        payer: p(5),
        payerAuthorizer: Address::ZERO,
        receiver: seller,
        receiverAuthorizer: facilitator,
        token: USDC,
        withdrawDelay: alloy::primitives::Uint::from(900u64),
        salt: B256::repeat_byte(7),
    };
    let deposit = |config: &ISettlementForms::ChannelConfig, amount| {
        ISettlementForms::depositCall {
            config: config.clone(),
            amount,
            collector: Address::ZERO,
            collectorData: Bytes::new(),
        }
        .abi_encode()
    };
    send(p(5), BATCH_SETTLEMENT, deposit(&channel, 50_000)).await;
    let claim = |total| {
        ISettlementForms::claimWithSignatureCall {
            voucherClaims: vec![voucher(&channel, total)],
            authorizerSignature: Bytes::new(),
        }
        .abi_encode()
    };
    let sweep = ISettlementForms::settle_1Call { receiver: seller, token: USDC }.abi_encode();
    let both = ISettlementForms::multicallCall { data: vec![claim(12_000).into(), sweep.clone().into()] }.abi_encode();
    send(facilitator, BATCH_SETTLEMENT, both).await;
    send(facilitator, BATCH_SETTLEMENT, claim(20_000)).await;
    send(facilitator, BATCH_SETTLEMENT, sweep).await;
    let first_pay = ISettlementForms::chargeCall {
        paymentInfo: payment(facilitator, p(4), escrowed, 4),
        amount: U256::from(6_000u64),
        tokenCollector: Address::ZERO,
        collectorData: Bytes::new(),
        feeBps: 0,
        feeReceiver: Address::ZERO,
    };
    send(facilitator, AUTH_CAPTURE_ESCROW, first_pay.abi_encode()).await;
    let other = ISettlementForms::ChannelConfig { receiver: swept, salt: B256::repeat_byte(8), ..channel.clone() };
    send(p(5), BATCH_SETTLEMENT, deposit(&other, 10_000)).await;
    let claim_other = ISettlementForms::claimWithSignatureCall {
        voucherClaims: vec![voucher(&other, 4_000)],
        authorizerSignature: Bytes::new(),
    };
    let sweep_other = ISettlementForms::settle_1Call { receiver: swept, token: USDC }.abi_encode();
    let both = ISettlementForms::multicallCall { data: vec![claim_other.abi_encode().into(), sweep_other.into()] }
        .abi_encode();
    send(facilitator, BATCH_SETTLEMENT, both).await;
    // A plain transfer from the payer itself.
    let plain = IFiatToken::transferCall { to: seller, value: U256::from(1_000u64) }.abi_encode();
    send(p(6), USDC, plain).await;
    // A later block closes the second the transactions were mined in: the ingest reads whole seconds.
    chain.anvil.mine_at(chrono::Utc::now().timestamp() + 30).await.expect("mined");

    // The sellers are listed; the ingest reads the chain to its head.
    let (_dir, lake, ingest) = listed_and_ingested(&chain, &[seller, escrowed, swept]);

    let settlements: Vec<SettlementRow> =
        read_dated::<SettlementRow>(&lake).expect("settlements").into_iter().map(|(_, r)| r).collect();
    let got = facts(&settlements);
    let relayer = Some(hex(chain.relayer.address()));
    let fac = Some(hex(facilitator));
    let s = hex(seller);
    let expected: BTreeSet<Fact> = [
        (s.clone(), hex(p(0)), 10_000, SettlementForm::Eip3009, relayer),
        (s.clone(), hex(p(1)), 20_000, SettlementForm::Permit2, fac.clone()),
        (s.clone(), hex(p(2)), 5_000, SettlementForm::Upto, fac.clone()),
        // The capture of 30,000 less the 1 % fee reached the seller, paid by the payment's payer.
        (s.clone(), hex(p(3)), 29_700, SettlementForm::AuthCapture, fac.clone()),
        (s.clone(), hex(p(4)), 8_000, SettlementForm::AuthCapture, fac.clone()),
        // Two claims of the channel (12,000, then 8,000 more), the sweeps not counted again.
        (s.clone(), hex(p(5)), 12_000, SettlementForm::BatchClaim, fac.clone()),
        (s.clone(), hex(p(5)), 8_000, SettlementForm::BatchClaim, fac.clone()),
        (s.clone(), hex(p(6)), 1_000, SettlementForm::Transfer, None),
        (hex(escrowed), hex(p(4)), 6_000, SettlementForm::AuthCapture, fac.clone()),
        (hex(swept), hex(p(5)), 4_000, SettlementForm::BatchClaim, fac.clone()),
    ]
    .into_iter()
    .collect();
    assert_eq!(got, expected);
    assert_eq!(settlements.len(), expected.len(), "one row each");
    let permit2 = settlements.iter().find(|s| s.form == Some(SettlementForm::Permit2)).expect("a Permit2 row");
    assert_eq!(
        (permit2.builder_app.as_deref(), permit2.builder_wallet.as_deref(), permit2.builder_services.as_deref()),
        (Some("shop"), Some("fac_one"), Some("cli_x"))
    );
    let claims: Vec<&SettlementRow> =
        settlements.iter().filter(|r| r.form == Some(SettlementForm::BatchClaim) && r.pay_to == s).collect();
    assert!(claims.iter().all(|c| c.channel.is_some() && c.channel == claims[0].channel), "one channel");

    let escrow: Vec<EscrowEventRow> =
        read_dated::<EscrowEventRow>(&lake).expect("escrow events").into_iter().map(|(_, r)| r).collect();
    assert_eq!(
        outcomes(&escrow),
        vec![
            (EscrowAction::Authorized, hex(p(3)), 30_000, None),
            (EscrowAction::Captured, hex(p(3)), 30_000, Some(300)),
            (EscrowAction::Refunded, hex(p(3)), 5_000, None),
            (EscrowAction::Authorized, hex(p(3)), 7_000, None),
            (EscrowAction::Voided, hex(p(3)), 7_000, None),
            (EscrowAction::Charged, hex(p(4)), 8_000, Some(0)),
            (EscrowAction::Charged, hex(p(4)), 6_000, Some(0)),
        ]
    );
    assert!(escrow.iter().all(|e| e.operator == hex(facilitator)));
    // The escrow names a payment by its getHash, which the ingest computes the same way (it checks
    // a call's payment against it).
    let abi = |p: &ISettlementForms::PaymentInfo| {
        use alloy::sol_types::SolValue;
        agentrep_ingest::chain::events::PaymentInfo::abi_decode(&p.abi_encode()).expect("the same struct")
    };
    let hash = abi(&captured).escrow_hash(agentrep_tests::chain::contracts::CHAIN_ID, AUTH_CAPTURE_ESCROW);
    assert_eq!(escrow[0].payment, format!("{hash:#x}"));

    // The first funders: the escrowed payment's payer for the seller first paid through the escrow
    // (the escrow, which sent the USDC, funds nobody); nobody for the seller only a sweep paid.
    ingest("funding");
    let funding: Vec<FundingRow> =
        read_dated::<FundingRow>(&lake).expect("funding").into_iter().map(|(_, r)| r).collect();
    let funder_of = |w: Address| funding.iter().find(|f| f.funded == hex(w)).map(|f| f.funder.clone());
    assert_eq!(funder_of(escrowed), Some(hex(p(4))));
    assert_eq!(funder_of(swept), None);
    assert_eq!(funder_of(seller), Some(hex(p(0))), "its first payment, as before");
}

/// The published contracts, compiled from their sources (`contracts/vendor`), settled through by
/// the official x402 packages (`tests/payments/clients/settle_forms.mjs`): exact through Permit2
/// and upto through their proxies, a batch channel's deposit, claims and sweep by @x402/evm's
/// facilitator, and the escrow v1.0 with @x402/evm's auth-capture client signing (the operator's
/// calls by hand: 2.27 has no auth-capture facilitator). The ingest must find each with its true
/// payer, amount and form, whatever the contracts' own transfers (Permit2 pulling from the payer,
/// the escrow's collector and token store, the batch contract's sweep) look like.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_published_contracts_settled_by_the_official_clients_are_read_with_their_true_payer() {
    let chain = PayChain::start().await.expect("anvil starts");
    let seller = address!("0x5e11e40000000000000000000000000000000011");
    let facilitator = PrivateKeySigner::random();
    let payers: Vec<PrivateKeySigner> = (0..4).map(|_| PrivateKeySigner::random()).collect();
    for who in payers.iter().chain([&facilitator]).map(PrivateKeySigner::address) {
        chain.anvil.set_balance(who, U256::from(10u128.pow(20))).await.expect("gas");
        chain.fund(who, 1_000_000).await.expect("funded");
    }
    // The escrow's charge is paid by a smart wallet that does not exist yet: USDC is sent to its
    // address, its owner signs, the signature carries the factory call (ERC-6492).
    let wallet = chain.smart_wallet(WALLET_FACTORY).await.expect("a wallet address");
    chain.fund(wallet.address, 1_000_000).await.expect("funded");
    let key = |s: &PrivateKeySigner| agentrep_tests::chain::paychain::key_hex(s);
    let plan = serde_json::json!({
        "facilitatorKey": key(&facilitator),
        "seller": hex(seller),
        "exact": { "payerKey": key(&payers[0]), "amount": 20_000 },
        "upto": { "payerKey": key(&payers[1]), "max": 9_000, "amount": 5_000 },
        "escrow": {
            "payerKey": key(&payers[2]), "authorize": 30_000, "capture": 30_000, "feeBps": 100,
            "refund": 5_000, "voided": 7_000, "charge": 8_000,
            "charger": {
                "wallet": hex(wallet.address), "ownerKey": key(&wallet.owner), "factory": hex(WALLET_FACTORY),
                "factoryCalldata": wallet.deployment.calldata.to_string(),
            },
        },
        "batch": { "payerKey": key(&payers[3]), "deposit": 50_000, "claims": [12_000, 20_000] },
    });
    let dir = tempfile::tempdir().expect("temp dir");
    let plan_file = dir.path().join("plan.json");
    std::fs::write(&plan_file, plan.to_string()).expect("plan written");
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("payments/clients/settle_forms.mjs");
    let out = std::process::Command::new("node")
        .arg(script)
        .arg(chain.anvil.url())
        .arg(&plan_file)
        .env("AGENTREP_CLIENTS_NODE_MODULES", agentrep_tests::test_clients().join("clients/node_modules"))
        .output()
        .expect("node runs");
    assert!(out.status.success(), "settle_forms.mjs: {}", String::from_utf8_lossy(&out.stderr));
    let settled: serde_json::Value = serde_json::from_slice(&out.stdout).expect("a JSON line");
    assert_eq!(settled["batch_claim"].as_array().map(Vec::len), Some(2), "{settled}");
    chain.anvil.mine_at(chrono::Utc::now().timestamp() + 30).await.expect("mined");

    let (_dir, lake, _) = listed_and_ingested(&chain, &[seller]);
    let settlements: Vec<SettlementRow> =
        read_dated::<SettlementRow>(&lake).expect("settlements").into_iter().map(|(_, r)| r).collect();
    let (s, fac, p) = (hex(seller), Some(hex(facilitator.address())), |i: usize| hex(payers[i].address()));
    let expected: BTreeSet<Fact> = [
        (s.clone(), p(0), 20_000, SettlementForm::Permit2, fac.clone()),
        // The upto payer signed 9,000; 5,000 was settled.
        (s.clone(), p(1), 5_000, SettlementForm::Upto, fac.clone()),
        // Captured 30,000 less the 1 % fee the operator kept; the refund went back to the payer.
        (s.clone(), p(2), 29_700, SettlementForm::AuthCapture, fac.clone()),
        // The smart wallet, whatever signed for it.
        (s.clone(), hex(wallet.address), 8_000, SettlementForm::AuthCapture, fac.clone()),
        // The channel's two claims (12,000, then 8,000 more); the sweep is not counted again.
        (s.clone(), p(3), 12_000, SettlementForm::BatchClaim, fac.clone()),
        (s.clone(), p(3), 8_000, SettlementForm::BatchClaim, fac.clone()),
    ]
    .into_iter()
    .collect();
    assert_eq!(facts(&settlements), expected);
    assert_eq!(settlements.len(), expected.len(), "one row each");

    let escrow: Vec<EscrowEventRow> =
        read_dated::<EscrowEventRow>(&lake).expect("escrow events").into_iter().map(|(_, r)| r).collect();
    assert_eq!(
        outcomes(&escrow),
        vec![
            (EscrowAction::Authorized, p(2), 30_000, None),
            (EscrowAction::Captured, p(2), 30_000, Some(300)),
            (EscrowAction::Refunded, p(2), 5_000, None),
            (EscrowAction::Authorized, p(2), 7_000, None),
            (EscrowAction::Voided, p(2), 7_000, None),
            (EscrowAction::Charged, hex(wallet.address), 8_000, Some(0)),
        ]
    );
    assert!(chain.has_code(wallet.address).await.expect("asked"), "the charge deployed the wallet");
}

/// A settlement's chain-independent facts: payee, payer, value, form, relayer.
type Fact = (String, String, u64, SettlementForm, Option<String>);

fn facts(settlements: &[SettlementRow]) -> BTreeSet<Fact> {
    settlements
        .iter()
        .map(|s| {
            (s.pay_to.clone(), s.payer.clone(), s.value, SettlementForm::of(s.form, s.eip3009), s.facilitator.clone())
        })
        .collect()
}

/// An escrow event's action, payer, amount and fee.
fn outcomes(escrow: &[EscrowEventRow]) -> Vec<(EscrowAction, String, u64, Option<u64>)> {
    escrow.iter().map(|e| (e.action.expect("a known action"), e.payer.clone(), e.amount, e.fee)).collect()
}

/// A lake in a temporary directory with `sellers` listed today, a config reading `chain` to its
/// head, and a runner of `agentrep ingest --source S` on both, as an operator runs it.
fn listed_and_ingested(chain: &PayChain, sellers: &[Address]) -> (tempfile::TempDir, Lake, impl Fn(&str) + use<>) {
    let dir = tempfile::tempdir().expect("temp dir");
    let lake = Lake::new(dir.path().join("lake"));
    let now = Timestamp::from_secs(chrono::Utc::now().timestamp());
    let listing = |pay_to: &Address| ListingRow {
        resource: format!("https://{pay_to:#x}.example/api"),
        pay_to: hex(*pay_to),
        network: "eip155:8453".into(),
        asset: hex(USDC),
        price_atomic: 1_000,
        description: None,
        tags: Vec::new(),
        ecosystem: "bazaar".into(),
        first_seen: now,
        last_seen: now,
    };
    let listings: Vec<ListingRow> = sellers.iter().map(listing).collect();
    lake.write_partition(chrono::Utc::now().date_naive(), &listings).expect("listings written");
    let config = dir.path().join("agentrep.toml");
    let toml = format!(
        "[chain]\nrpc_urls = [\"{}\"]\nuse_finalized = false\nconfirmations = 0\nstart_block = 0\n\
         request_timeout_ms = 5000\ninitial_backoff_ms = 20\n\n[facilitators]\nrefresh = false\n",
        chain.anvil.url()
    );
    std::fs::write(&config, toml).expect("config written");
    let root = lake.root().to_owned();
    let ingest = move |source: &str| {
        let out = std::process::Command::new(agentrep_binary())
            .args(["ingest", "--source", source, "--clock", "chain", "--lake"])
            .arg(&root)
            .arg("--config")
            .arg(&config)
            .output()
            .expect("agentrep runs");
        assert!(out.status.success(), "{source}: {}", String::from_utf8_lossy(&out.stderr));
    };
    ingest("settlements");
    (dir, lake, ingest)
}
