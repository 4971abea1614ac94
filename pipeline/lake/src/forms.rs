//! How a settlement's money reached its seller (`../shared/reference/x402.md` § 8): the closed set
//! of forms the settlements job tells apart, stored in the `form` column of `settlements` by its
//! wire name, and the auth-capture escrow's actions, stored in `escrow_events`. Partitions written before the column existed read it as null; [`SettlementForm::of`]
//! gives their form from the `eip3009` flag they carry, as the rebuild always read them.

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, StringArray};
use arrow::datatypes::DataType;

use crate::column::Column;

/// How a settlement's funds reached the seller.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SettlementForm {
    /// USDC's own `transferWithAuthorization` or `receiveWithAuthorization`: the payer's EIP-3009
    /// authorization moved the funds (the `exact` scheme's baseline).
    Eip3009,
    /// The x402 exact Permit2 proxy settled it (`Settled()` or `SettledWithPermit()`): the payer's
    /// Permit2 signature moved the funds.
    Permit2,
    /// The x402 `upto` Permit2 proxy settled it: the payer signed a maximum, the seller was paid
    /// what the call cost (a zero charge makes no transaction).
    Upto,
    /// The auth-capture escrow paid the seller at capture or charge; the payer is the escrowed
    /// payment's payer (the escrow's token store sent the funds).
    AuthCapture,
    /// A batch-settlement claim: the payment-channel contract paid the seller what one channel's
    /// calls added up to since the last claim. One row is one claim, not one call.
    BatchClaim,
    /// Anything else: an ERC-20 `transfer` or `transferFrom`, which no signed authorization made.
    Transfer,
}

impl SettlementForm {
    /// Every form, in the order of the table above.
    pub const ALL: [SettlementForm; 6] = [
        SettlementForm::Eip3009,
        SettlementForm::Permit2,
        SettlementForm::Upto,
        SettlementForm::AuthCapture,
        SettlementForm::BatchClaim,
        SettlementForm::Transfer,
    ];

    /// The wire name stored in the lake.
    pub const fn as_str(self) -> &'static str {
        match self {
            SettlementForm::Eip3009 => "eip3009",
            SettlementForm::Permit2 => "permit2",
            SettlementForm::Upto => "upto",
            SettlementForm::AuthCapture => "auth_capture",
            SettlementForm::BatchClaim => "batch_claim",
            SettlementForm::Transfer => "transfer",
        }
    }

    /// The form of a wire name; `None` for a name this build does not know.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|f| f.as_str() == name)
    }

    /// Whether the payer's own signed authorization moved the funds through one of x402's schemes:
    /// what attribution requires of a settlement's form (SCORING.md § 1), beside a known
    /// facilitator having sent it. A plain transfer is not.
    pub const fn is_x402(self) -> bool {
        !matches!(self, SettlementForm::Transfer)
    }

    /// A row's form: the stored one, or for a row written before forms were read, EIP-3009 when its
    /// `eip3009` flag says so and a plain transfer otherwise.
    pub fn of(stored: Option<SettlementForm>, eip3009: bool) -> SettlementForm {
        stored.unwrap_or(if eip3009 { SettlementForm::Eip3009 } else { SettlementForm::Transfer })
    }

    /// The x402 forms' wire names as a SQL list (`'eip3009', 'permit2', …`): the rebuild's
    /// attribution reads the set from here, not from a copy in its SQL.
    pub fn x402_sql_list() -> String {
        let names: Vec<String> =
            Self::ALL.into_iter().filter(|f| f.is_x402()).map(|f| format!("'{}'", f.as_str())).collect();
        names.join(", ")
    }
}

impl std::fmt::Display for SettlementForm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How the auth-capture escrow moved an escrowed payment (the `action` of `escrow_events`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EscrowAction {
    /// The payer's funds went into the escrow, up to the amount the operator may capture.
    Authorized,
    /// Authorized and captured in one call: the seller was paid at once.
    Charged,
    /// The operator paid the seller from the escrowed funds.
    Captured,
    /// The operator gave the uncaptured funds back to the payer.
    Voided,
    /// The payer took the uncaptured funds back after the authorization expired.
    Reclaimed,
    /// The operator returned captured funds to the payer.
    Refunded,
}

impl EscrowAction {
    /// Every action, in the order of the table above.
    pub const ALL: [EscrowAction; 6] = [
        EscrowAction::Authorized,
        EscrowAction::Charged,
        EscrowAction::Captured,
        EscrowAction::Voided,
        EscrowAction::Reclaimed,
        EscrowAction::Refunded,
    ];

    /// The wire name stored in the lake.
    pub const fn as_str(self) -> &'static str {
        match self {
            EscrowAction::Authorized => "authorized",
            EscrowAction::Charged => "charged",
            EscrowAction::Captured => "captured",
            EscrowAction::Voided => "voided",
            EscrowAction::Reclaimed => "reclaimed",
            EscrowAction::Refunded => "refunded",
        }
    }

    /// The action of a wire name; `None` for a name this build does not know.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|a| a.as_str() == name)
    }
}

/// A closed set stored as its wire names: a nullable text column, where a name this build does
/// not know (a member added later) reads as null, and a partition written before the column
/// existed reads as nulls.
macro_rules! wire_name_column {
    ($ty:ty) => {
        impl Column for Option<$ty> {
            const NULLABLE: bool = true;
            fn data_type() -> DataType {
                DataType::Utf8
            }
            fn build<'a>(values: impl ExactSizeIterator<Item = &'a Self>) -> ArrayRef {
                Arc::new(values.map(|v| v.map(<$ty>::as_str)).collect::<StringArray>())
            }
            fn read(array: &dyn Array) -> Vec<Self> {
                array.as_string::<i32>().iter().map(|v| v.and_then(<$ty>::parse)).collect()
            }
            fn absent(rows: usize) -> Option<Vec<Self>> {
                Some(vec![None; rows])
            }
        }
    };
}

wire_name_column!(SettlementForm);
wire_name_column!(EscrowAction);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_reads_back_by_its_name() {
        for form in SettlementForm::ALL {
            assert_eq!(SettlementForm::parse(form.as_str()), Some(form));
        }
        for action in EscrowAction::ALL {
            assert_eq!(EscrowAction::parse(action.as_str()), Some(action));
        }
        let column = <Option<SettlementForm> as Column>::build([Some(SettlementForm::Upto), None].iter());
        assert_eq!(<Option<SettlementForm> as Column>::read(column.as_ref()), vec![Some(SettlementForm::Upto), None]);
        let unknown = StringArray::from(vec![Some("channel_v9")]);
        assert_eq!(<Option<SettlementForm> as Column>::read(&unknown), vec![None]);
    }

    #[test]
    fn rows_before_forms_read_from_their_flag() {
        assert_eq!(SettlementForm::of(None, true), SettlementForm::Eip3009);
        assert_eq!(SettlementForm::of(None, false), SettlementForm::Transfer);
        assert_eq!(SettlementForm::of(Some(SettlementForm::Permit2), false), SettlementForm::Permit2);
    }

    #[test]
    fn only_a_plain_transfer_is_outside_x402() {
        assert_eq!(SettlementForm::x402_sql_list(), "'eip3009', 'permit2', 'upto', 'auth_capture', 'batch_claim'");
    }
}
