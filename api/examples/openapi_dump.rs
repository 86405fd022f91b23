fn main() {
    let (_, doc) = api::server::api_routes();
    println!("{}", doc.to_pretty_json().unwrap());
}
