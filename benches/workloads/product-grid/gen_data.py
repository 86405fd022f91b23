#!/usr/bin/env python3
"""Writes data.json for the product-grid workload: a products collection page with 48
products (physical with variants, digital, service, gift card), prices, sales and stock."""
import json, random

rng = random.Random(48)
names = ("Tidepool Mug|Oat Bowl|Driftwood Plate|Speckled Vase|Kiln Candle|Glaze Workshop|"
         "Gift Card|Salt Cellar|Pour-over Set|Serving Board|Linen Napkins|Bud Vase").split("|")
items = []
for i in range(48):
    kind = [1, 1, 1, 2, 3, 4][i % 6]
    base = rng.choice([1200, 1800, 2400, 3600, 4800, 9600])
    variants = []
    for v, size in enumerate(["Small", "Medium", "Large"][: 1 if kind in (2, 3) else 3]):
        price = base + v * 400
        on_sale = i % 5 == 0 and v == 0
        stock = 0 if i % 7 == 0 else rng.randint(0, 12)
        variants.append({
            "sku": f"SKU-{i:03d}-{v}", "attributes": {"Size": size} if kind == 1 else {},
            "optionValues": [{"name": "Size", "value": size}] if kind == 1 else [],
            "priceMoney": {"currency": "USD", "value": f"{price / 100:.2f}"},
            "salePriceMoney": {"currency": "USD", "value": f"{price * 0.8 / 100:.2f}"},
            "price": price, "salePrice": int(price * 0.8), "onSale": on_sale,
            "qtyInStock": stock, "unlimited": kind in (2, 4),
        })
    sc = {"productType": kind, "variants": variants}
    if kind == 2:
        sc.update({"priceMoney": variants[0]["priceMoney"], "salePriceMoney": variants[0]["salePriceMoney"],
                   "onSale": variants[0]["onSale"]})
    items.append({
        "id": f"6b01{i:020x}", "urlId": f"product-{i}", "fullUrl": f"/shop/product-{i}",
        "title": f"{names[i % len(names)]} No. {i + 1}", "recordType": 11, "starred": i % 9 == 0,
        "categories": [rng.choice(["Tableware", "Vases", "Classes", "Gifts"])], "tags": ["handmade"],
        "assetUrl": f"https://images.example.test/p{i}.jpg", "mainImageId": f"img{i}", "originalSize": "1500x1500",
        "mediaFocalPoint": {"x": 0.5, "y": 0.5}, "structuredContent": sc,
    })
data = {
    "collection": {"id": "6b01c0ffee", "title": "Shop", "typeName": "products", "description": "<p>Small-batch stoneware.</p>"},
    "items": items,
    "shoppingCart": {"entries": [{"quantity": 2}, {"quantity": 1}], "subtotalCents": 5400, "totalQuantity": 3},
    "website": {"timeZone": "America/New_York", "siteTitle": "Harbor"},
    "websiteSettings": {"storeSettings": {"selectedCurrency": "USD"}},
    "localizedStrings": {},
}
json.dump(data, open(__file__.replace("gen_data.py", "data.json"), "w"), indent=1)
