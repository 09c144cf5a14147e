"""Known-answer tests of icml25.disco (MovieTection-Synth, the title model, the scores)."""

from functools import cache

import numpy as np
import pytest
import torch
from rapidfuzz import fuzz
from scipy import stats

from icml25 import disco as dc
from icml25.disco.model import greedy_decode

torch.set_num_threads(1)


@cache
def _split():
    return dc.make_split(dc.make_movies(40, seed=0), seed=0)


@cache
def _untrained():
    return dc.build_title_vlm(_split(), seed=0)


def test_titles_are_distinct_and_never_real_looking():
    movies = dc.make_movies(40, seed=3)
    titles = [m.title for m in movies]
    assert len(set(titles)) == 40
    for i, a in enumerate(titles):
        assert len(a.split()) == 2
        for b in titles[:i]:
            assert fuzz.ratio(a.casefold(), b.casefold()) < 60
    assert dc.make_movies(40, seed=3) == movies


def test_renderer_shape_range_and_sprite_only_in_main():
    movie = dc.make_movies(3, seed=0)[0]
    for kind in dc.KINDS:
        f = dc.render_frame(movie, kind, np.random.default_rng(1))
        assert f.shape == (32, 32, 3) and f.min() >= 0 and f.max() <= 1
    tint = np.array(dc.COLOURS[movie.palette[2]])

    def near_tint(kind):  # share of pixels close to the sprite's tint, over many frames
        rng = np.random.default_rng(2)
        fr = np.stack([dc.render_frame(movie, kind, rng) for _ in range(30)])
        return float(np.mean(np.linalg.norm(fr - tint, axis=-1) < 0.15))

    assert near_tint("main") > 5 * near_tint("neutral") + 0.01
    a = dc.render_frame(movie, "main", np.random.default_rng(5))
    assert np.array_equal(a, dc.render_frame(movie, "main", np.random.default_rng(5)))


def test_captions_never_contain_the_title():
    movies = dc.make_movies(40, seed=0)
    rng = np.random.default_rng(0)
    for m in movies:
        for kind in dc.KINDS:
            c = dc.caption(m, kind, rng)
            for word in m.title.casefold().split():
                assert word not in c.casefold()
            assert ("figure" in c) == (kind == "main")


def test_split_layout_and_leakage_guard():
    sp = _split()
    M = len(sp.movies)
    assert sp.label.sum() == M // 2 and (sp.label[: M // 2] == 1).all()
    assert (sp.exposure[sp.label == 0] == 0).all()
    assert list(sp.exposure[:5]) == [2, 4, 8, 16, 32]
    clean = {sp.movies[i].title for i in np.flatnonzero(sp.label == 0)}
    targets = {sp.movies[i].title for i in sp.train.movie} | {t for _, t in sp.text_pairs}
    assert not clean & targets
    assert (sp.label[sp.train.movie] == 1).all()
    for i in np.flatnonzero(sp.label):
        sel = sp.train.movie == i
        assert sel.sum() == sp.exposure[i]
        assert (sp.train.kind[sel] == "main").sum() == -(-3 * sp.exposure[i] // 4)
    assert sp.text_known.sum() == -(-(M // 2) // 3) and not sp.text_known[sp.label == 0].any()
    assert len(sp.eval) == M * 40
    assert ((sp.eval.kind == "main").sum(), (sp.eval.kind == "neutral").sum()) == (M * 20, M * 20)
    assert sp.train.frames.shape[1:] == (32, 32, 3)


def test_match_title_variants():
    t = "Sikeba Zotril"
    for g in [
        "sikeba zotril",
        "The Sikeba Zotril",
        "Sikeba, Zotril!",
        "  SIKEBA   zotril ",
        "Sikeba Zotri",
    ]:
        assert dc.match_title(g, t)
    assert not dc.match_title("Sikeba Zotri", t, threshold=100)
    assert dc.match_title("the sikeba-zotril.", t, threshold=100)
    titles = [m.title for m in dc.make_movies(40, seed=0)]
    for a in titles:
        assert sum(dc.match_title(a, b) for b in titles) == 1
    assert not dc.match_title("", t)


def test_detection_auc_known_answers():
    y = np.array([0, 1, 0, 1, 1, 0])
    assert dc.detection_auc(y.astype(float), y) == 1.0
    assert dc.detection_auc(np.ones(6), y) == 0.5
    assert dc.detection_auc(-y.astype(float), y) == 0.0
    with pytest.raises(ValueError, match="labels"):
        dc.detection_auc(np.ones(3), [1, 1, 1])
    with pytest.raises(ValueError, match="scores"):
        dc.detection_auc([0.1, np.nan], [0, 1])
    with pytest.raises(ValueError, match="equal lengths"):
        dc.detection_auc([0.1, 0.2, 0.3], [0, 1])


def test_untrained_model_free_form_zero_and_mcqa_at_chance():
    sp, m = _split(), _untrained()
    d = dc.disco_scores(m, sp)
    assert (d.accuracy == 0).all() and (d.n_frames == 20).all()
    q = dc.mcqa_scores(m, sp, distractors="others", seed=0)
    n = int(q.n_frames.sum())
    hits = int(round((q.accuracy * q.n_frames).sum()))
    lo, hi = stats.binom.ppf([0.005, 0.995], n, 0.25)
    assert lo <= hits <= hi, (hits, n)


def test_cached_decoding_matches_tinyvlm_generate():
    sp, m = _split(), _untrained()
    end = m.tok.index["."]
    prompt = torch.tensor(m._image_prompt(">")).repeat(6, 1)
    img = m._images(sp.eval.frames[:6])
    a = m.net.generate(prompt, img, 10, end)
    b, lp = greedy_decode(m.net, prompt, img, 10, end)
    assert torch.equal(a, b) and bool((lp <= 0).all())


def test_training_names_suspects_and_never_clean_movies():
    sp = dc.make_split(dc.make_movies(6, seed=1), exposures=(16,), n_suspect=3, n_eval=4, seed=1)
    m = dc.build_title_vlm(sp, seed=1)
    hist = dc.train_title_vlm(m, sp, epochs=25, seed=1, progress=False)
    assert np.mean(hist["loss"][-3:]) < 0.5 * np.mean(hist["loss"][:3])
    d = dc.disco_scores(m, sp)
    assert (d.accuracy[d.label == 0] == 0).all()
    assert d.accuracy[d.label == 1].mean() > 0.5
    o = dc.oracle_scores(m, sp)
    assert dc.detection_auc(o.score, o.label) == 1.0
    caps = m.caption_frames(sp.eval.frames[:2])
    assert all(isinstance(c, str) for c in caps)
    f = dc.disco_scores(m, sp, discount_captions=True)
    assert (f.accuracy <= d.accuracy).all()
    for method in dc.MIA_METHODS:
        s = dc.mia_scores(m, sp, method)
        assert np.isfinite(s.score).all() and (s.score <= 0).all()


def test_mcqa_summed_scores_and_normalise_flag():
    sp, m = _split(), _untrained()
    q = dc.mcqa_scores(m, sp, distractors="decoys", seed=0, normalise=False)
    assert q.accuracy.between(0, 1).all() and (q.n_frames == 20).all()
    with pytest.raises(TypeError, match="normalise"):
        dc.mcqa_scores(m, sp, normalise="yes")
