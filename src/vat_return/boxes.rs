//! The nine boxes of a VAT return, as HMRC's VAT API names them (docs/vat.md).
//!
//! Boxes 1-5 are money (2 dp); boxes 6-9 whole pounds, each box's exact sum with its pence
//! dropped (towards zero). Box 3 = box 1 + box 2; box 5 = |box 3 − box 4|.

use serde::Serialize;

use crate::db::decimal::Money;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Boxes {
    pub vat_due_sales: Money,
    pub vat_due_acquisitions: Money,
    pub total_vat_due: Money,
    pub vat_reclaimed_curr_period: Money,
    pub net_vat_due: Money,
    #[serde(rename = "totalValueSalesExVAT")]
    pub total_value_sales_ex_vat: Money,
    #[serde(rename = "totalValuePurchasesExVAT")]
    pub total_value_purchases_ex_vat: Money,
    #[serde(rename = "totalValueGoodsSuppliedExVAT")]
    pub total_value_goods_supplied_ex_vat: Money,
    #[serde(rename = "totalAcquisitionsExVAT")]
    pub total_acquisitions_ex_vat: Money,
}
