"""The API documentation page works without internet access."""

from __future__ import annotations

import re

import pytest


@pytest.mark.django_db
def test_api_docs_load_their_assets_from_this_site(client):
    response = client.get("/api/docs/")
    assert response.status_code == 200
    sources = re.findall(r'(?:src|href)="([^"]+)"', response.content.decode())
    assert any("swagger-ui-bundle.js" in source for source in sources)
    assert [s for s in sources if s.startswith(("http://", "https://", "//"))] == []
