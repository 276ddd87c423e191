//! The nine tables of TPC-C (1.3): names and column order, the one place both the row
//! generators and the loader take them from.

/// The nine tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Table {
    Item,
    Warehouse,
    Stock,
    District,
    Customer,
    History,
    Orders,
    OrderLine,
    NewOrder,
}

impl Table {
    pub const ALL: [Table; 9] = [
        Table::Item,
        Table::Warehouse,
        Table::Stock,
        Table::District,
        Table::Customer,
        Table::History,
        Table::Orders,
        Table::OrderLine,
        Table::NewOrder,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Table::Item => "item",
            Table::Warehouse => "warehouse",
            Table::Stock => "stock",
            Table::District => "district",
            Table::Customer => "customer",
            Table::History => "history",
            Table::Orders => "orders",
            Table::OrderLine => "order_line",
            Table::NewOrder => "new_order",
        }
    }

    /// Column names, in the order rows carry their values.
    pub fn columns(self) -> &'static [&'static str] {
        match self {
            Table::Item => columns::ITEM,
            Table::Warehouse => columns::WAREHOUSE,
            Table::Stock => columns::STOCK,
            Table::District => columns::DISTRICT,
            Table::Customer => columns::CUSTOMER,
            Table::History => columns::HISTORY,
            Table::Orders => columns::ORDERS,
            Table::OrderLine => columns::ORDER_LINE,
            Table::NewOrder => columns::NEW_ORDER,
        }
    }

    /// Whether the table has rows per warehouse (all but ITEM).
    pub fn per_warehouse(self) -> bool {
        self != Table::Item
    }
}

/// Each table's columns (1.3), in the order rows carry their values.
mod columns {
    pub const ITEM: &[&str] = &["i_id", "i_im_id", "i_name", "i_price", "i_data"];
    pub const WAREHOUSE: &[&str] = &[
        "w_id",
        "w_name",
        "w_street_1",
        "w_street_2",
        "w_city",
        "w_state",
        "w_zip",
        "w_tax",
        "w_ytd",
    ];
    pub const STOCK: &[&str] = &[
        "s_i_id",
        "s_w_id",
        "s_quantity",
        "s_dist_01",
        "s_dist_02",
        "s_dist_03",
        "s_dist_04",
        "s_dist_05",
        "s_dist_06",
        "s_dist_07",
        "s_dist_08",
        "s_dist_09",
        "s_dist_10",
        "s_ytd",
        "s_order_cnt",
        "s_remote_cnt",
        "s_data",
    ];
    pub const DISTRICT: &[&str] = &[
        "d_id",
        "d_w_id",
        "d_name",
        "d_street_1",
        "d_street_2",
        "d_city",
        "d_state",
        "d_zip",
        "d_tax",
        "d_ytd",
        "d_next_o_id",
    ];
    pub const CUSTOMER: &[&str] = &[
        "c_id",
        "c_d_id",
        "c_w_id",
        "c_first",
        "c_middle",
        "c_last",
        "c_street_1",
        "c_street_2",
        "c_city",
        "c_state",
        "c_zip",
        "c_phone",
        "c_since",
        "c_credit",
        "c_credit_lim",
        "c_discount",
        "c_balance",
        "c_ytd_payment",
        "c_payment_cnt",
        "c_delivery_cnt",
        "c_data",
    ];
    pub const HISTORY: &[&str] = &[
        "h_c_id", "h_c_d_id", "h_c_w_id", "h_d_id", "h_w_id", "h_date", "h_amount", "h_data",
    ];
    pub const ORDERS: &[&str] = &[
        "o_id",
        "o_d_id",
        "o_w_id",
        "o_c_id",
        "o_entry_d",
        "o_carrier_id",
        "o_ol_cnt",
        "o_all_local",
    ];
    pub const ORDER_LINE: &[&str] = &[
        "ol_o_id",
        "ol_d_id",
        "ol_w_id",
        "ol_number",
        "ol_i_id",
        "ol_supply_w_id",
        "ol_delivery_d",
        "ol_quantity",
        "ol_amount",
        "ol_dist_info",
    ];
    pub const NEW_ORDER: &[&str] = &["no_o_id", "no_d_id", "no_w_id"];
}
