#!/usr/bin/env python3
"""Writes data.json for the blog-page workload: a deterministic, realistic page context
(site settings, navigation with folders, 24 posts with images, tags, authors, dates)."""
import json, random

rng = random.Random(20261121)
words = ("kiln glaze studio tile porcelain clay wheel fire ash blue cobalt slip trim bisque "
         "market season harvest garden coast harbour morning light stone linen thread loom").split()

def sentence(n):
    s = " ".join(rng.choice(words) for _ in range(n))
    return s[0].upper() + s[1:]

categories = ["Studio", "Process", "Travel", "Markets", "Guides"]
tags = ["ceramics", "glaze tests", "behind the scenes", "how-to", "events", "new work", "slow living"]
authors = [{"id": f"a{i}", "displayName": n} for i, n in enumerate(["Ana Costa", "Rui Matos", "Inês Lopes"])]
items = []
for i in range(48):
    title = sentence(rng.randint(4, 9))
    slug = "-".join(title.lower().split()[:5])
    items.append({
        "id": f"post{i:03d}",
        "title": title + (" -- a \"field\" note" if i % 5 == 0 else ""),
        "fullUrl": f"/blog/{slug}",
        "publishOn": 1700000000000 + i * 86400000 * 3 + rng.randint(0, 86400000),
        "starred": i % 7 == 0,
        "assetUrl": f"https://images.example.test/{i:03d}/photo.jpg" if i % 4 else "",
        "imageWidth": 1500, "imageHeight": 1000,
        "excerpt": "<p>" + ". ".join(sentence(rng.randint(8, 16)) for _ in range(3)) + ".</p>",
        "tags": rng.sample(tags, rng.randint(0, 3)),
        "categories": rng.sample(categories, rng.randint(1, 2)),
        "author": rng.choice(authors),
        "commentCount": rng.choice([0, 0, 1, 2, 5, 12]),
        "likeCount": rng.randint(0, 40),
    })

nav = [
    {"title": "Home", "url": "/", "active": False},
    {"title": "Shop", "url": "/shop", "folder": True, "children": [
        {"title": "Tableware", "url": "/shop/tableware"}, {"title": "Tiles", "url": "/shop/tiles"},
        {"title": "Gift cards", "url": "/shop/gift-cards"}]},
    {"title": "Journal", "url": "/blog", "active": True},
    {"title": "Workshops", "url": "/workshops"},
    {"title": "About", "url": "/about", "folder": True, "children": [
        {"title": "Story", "url": "/about/story"}, {"title": "Press & Stockists", "url": "/about/press"}]},
    {"title": "Contact", "url": "/contact"},
]

data = {
    "website": {
        "siteTitle": "Atelier Azul", "language": "en-US", "baseUrl": "https://atelier-azul.example.test",
        "siteDescription": "<p>Hand-thrown ceramics & tiles from a small studio by the sea. Workshops, journal and shop.</p>",
        "timeZone": "Europe/Lisbon", "bodyClasses": ["Collection Type Blog", "Layout Grid", "Header Overlay"],
        "structuredData": {"@context": "https://schema.org", "@type": "WebSite", "name": "Atelier Azul",
                           "url": "https://atelier-azul.example.test", "keywords": ["ceramics", "tiles", "</script>"]},
        "location": {"addressLine1": "Rua do Forno 12", "addressLine2": "Lisboa, Portugal"},
        "socialAccounts": [{"serviceName": "instagram", "profileUrl": "https://instagram.example.test/azul"},
                           {"serviceName": "pinterest", "profileUrl": "https://pinterest.example.test/azul"}],
        "copyrightYear": 2026,
    },
    "navigation": {"items": nav},
    "layout": "Grid Three Columns",
    "collection": {"title": "Journal", "fullUrl": "/blog", "categories": categories,
                   "description": "<p>Notes from the studio: process, <em>travel</em>, markets.</p>"},
    "activeCategory": "Process",
    "items": items,
    "pagination": {"prevPage": True, "prevPageUrl": "/blog?page=1", "nextPage": True, "nextPageUrl": "/blog?page=3",
                   "currentPage": 2, "totalPages": 5},
    "popular": items[:8],
    "archive": [{"month": f"{m} 2026", "count": rng.randint(1, 9)} for m in
                ["January", "February", "March", "April", "May", "June", "July", "August", "September"]],
}
json.dump(data, open(__file__.replace("gen_data.py", "data.json"), "w"), indent=1, ensure_ascii=False)
