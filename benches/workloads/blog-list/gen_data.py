#!/usr/bin/env python3
"""Writes data.json for the blog-list workload: the first page of a blog (10 posts with
dates, authors, categories, images and excerpts), the site navigation and pagination."""
import json, random

rng = random.Random(1010)
words = ("studio kiln glaze clay wheel coast harbour garden linen market morning cobalt stone "
         "season slip fire tile bisque loom thread light harvest").split()

def sentence(n):
    s = " ".join(rng.choice(words) for _ in range(n))
    return s[0].upper() + s[1:]

authors = [{"id": "a1", "displayName": "Ana Costa"}, {"id": "a2", "displayName": "Rui Matos"}]
items = []
for i in range(10):
    title = sentence(rng.randint(4, 8)) + (" & notes" if i % 4 == 1 else "")
    items.append({
        "id": f"post{i:02d}",
        "title": title,
        "fullUrl": "/blog/" + "-".join(title.lower().split()[:4]),
        "publishOn": 1730000000000 + i * 86400000 * 5 + rng.randint(0, 86400000),
        "starred": i == 0,
        "assetUrl": f"https://images.example.test/blog/{i:02d}.jpg" if i % 3 else "",
        "excerpt": "<p>" + ". ".join(sentence(rng.randint(8, 14)) for _ in range(2)) + ".</p>",
        "categories": rng.sample(["Studio", "Process", "Markets", "Guides"], rng.randint(1, 2)),
        "author": rng.choice(authors),
        "commentCount": rng.choice([0, 0, 1, 3]),
    })

data = {
    "website": {"siteTitle": "Atelier Azul", "language": "en-US", "baseUrl": "https://atelier-azul.example.test",
                "timeZone": "Europe/Lisbon", "copyrightYear": 2026},
    "navigation": {"items": [
        {"title": "Home", "url": "/"}, {"title": "Shop", "url": "/shop"},
        {"title": "Journal", "url": "/blog", "active": True}, {"title": "About", "url": "/about"},
        {"title": "Contact", "url": "/contact"}]},
    "collection": {"title": "Journal", "fullUrl": "/blog"},
    "items": items,
    "pagination": {"nextPage": True, "nextPageUrl": "/blog?offset=1730000000000"},
}
json.dump(data, open(__file__.replace("gen_data.py", "data.json"), "w"), indent=1, ensure_ascii=False)
