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


def test_untrained_decoy_mcqa_at_chance_by_movie_level_interval():
    """MCQA with never-seen decoys for an untrained model: per-movie accuracies (averaged over
    three option draws) are clustered by title, so the tolerance is the 99 % t-interval over the
    movies, not a frame-level binomial. Tuning seeds 100, 101 (never reported)."""
    for seed in (100, 101):
        sp = dc.make_split(dc.make_movies(40, seed=seed), seed=seed)
        u = dc.build_title_vlm(sp, seed=seed, device="cpu")
        acc = np.mean(
            [
                dc.mcqa_scores(u, sp, distractors="decoys", seed=d).accuracy.to_numpy()
                for d in range(3)
            ],
            axis=0,
        )
        t = (acc.mean() - 0.25) / (acc.std(ddof=1) / np.sqrt(len(acc)))
        assert abs(t) <= stats.t.ppf(0.995, len(acc) - 1), (seed, acc.mean(), t)


class _KnowsTitles:
    """A stub title model that scores the split's own titles 0 and every other title -10."""

    def __init__(self, titles):
        self.titles = set(titles)

    def guess(self, frames, captions=None):
        return [""] * (len(frames) if frames is not None else len(captions))

    def title_logprob(self, frames, titles):
        return np.array([0.0 if t in self.titles else -10.0 for t in titles])


def test_decoy_mcqa_check_can_fail():
    sp = _split()
    acc = dc.mcqa_scores(_KnowsTitles(sp.titles), sp, distractors="decoys").accuracy
    assert (acc == 1).all()  # far outside any interval around 1/4


def test_cpu_device_path_trains_decodes_and_scores():
    sp = dc.make_split(dc.make_movies(6, seed=1), exposures=(4,), n_suspect=3, n_eval=2, seed=1)
    m = dc.build_title_vlm(sp, seed=1, cnn_width=8, n_embd=16, device="cpu")
    assert m.device == torch.device("cpu") and m.to("cpu") is m
    assert all(p.device.type == "cpu" for p in m.net.parameters())
    dc.train_title_vlm(m, sp, epochs=1, seed=1, progress=False)
    ev = sp.eval.frames[:3]
    assert len(m.guess(ev)) == 3 and len(m.guess(None, captions=sp.eval.caption[:2])) == 2
    lp = m.title_logprob(ev, [sp.titles[0]] * 3)
    assert isinstance(lp, np.ndarray) and lp.shape == (3,) and (lp <= 0).all()
    assert all(isinstance(x, np.ndarray) for x in m.caption_token_logprobs(ev))
    prompt = torch.tensor(m._image_prompt(">")).repeat(2, 1)
    toks, lps = greedy_decode(m.net, prompt, m._images(ev[:2]), 4, m.tok.index["."])
    assert toks.device == m.device and lps.device == m.device
    # the same seed gives the same weights whatever the device argument
    a = dc.build_title_vlm(sp, seed=1, cnn_width=8, n_embd=16, device="cpu")
    b = dc.build_title_vlm(sp, seed=1, cnn_width=8, n_embd=16)
    assert all(
        torch.equal(x.cpu(), y.cpu())
        for x, y in zip(a.net.parameters(), b.net.parameters(), strict=True)
    )


def test_prepare_runs_matches_the_notebook_loop():
    over = {"n_movies": 6, "n_eval": 2, "epochs": 2, "cnn_width": 8, "n_embd": 16}
    cfg, runs = dc.prepare_runs("small", seeds=(3, 4), device="cpu", progress=False, **over)
    assert cfg["seeds"] == (3, 4) and cfg["n_movies"] == 6
    assert dc.RUN_CONFIGS["small"]["seeds"] == (3, 4, 5)  # overrides do not leak
    assert [r.seed for r in runs] == [3, 4]
    sp = dc.make_split(dc.make_movies(6, seed=4), n_eval=2, seed=4)
    assert sp.titles == runs[1].split.titles
    m = dc.build_title_vlm(sp, seed=4, cnn_width=8, n_embd=16, device="cpu")
    u = runs[1].untrained
    assert all(
        torch.equal(x, y) for x, y in zip(m.net.parameters(), u.net.parameters(), strict=True)
    )
    dc.train_title_vlm(m, sp, epochs=2, seed=4, progress=False)
    assert all(
        torch.equal(x, y)
        for x, y in zip(m.net.parameters(), runs[1].model.net.parameters(), strict=True)
    )
    assert len(runs[1].history["loss"]) > 0
    with pytest.raises(TypeError):
        dc.prepare_runs("small", progress=False, seed=3)  # a typo'd setting is not swallowed


def test_text_errors_name_the_argument():
    sp, m = _split(), _untrained()
    fr = sp.eval.frames[:1]
    with pytest.raises(ValueError, match="titles"):
        m.title_logprob(fr, [""])
    with pytest.raises(ValueError, match="titles"):
        m.title_logprob(fr, ["Ab~Cd"])
    with pytest.raises(ValueError, match="titles"):
        m.title_logprob(fr, ["Ab@Cd"])  # a marker (the image placeholder) is not text
    with pytest.raises(ValueError, match="titles"):
        m.title_logprob(fr, ["ab" * 60])
    with pytest.raises(ValueError, match="captions"):
        m.guess(None, captions=["a red §"])
    y = np.array([False, True, False, True])
    assert dc.detection_auc([0.1, 0.9, 0.2, 0.8], y) == 1.0
    assert dc.detection_auc([0.1, 0.9, 0.2, 0.8], list(y)) == 1.0


def test_checkpoints_round_trip_and_guard(tmp_path):
    over = {"n_movies": 4, "n_eval": 2, "epochs": 1, "cnn_width": 4, "n_embd": 8}
    cfg, runs = dc.prepare_runs("small", seeds=(0,), device="cpu", progress=False, **over)
    run = runs[0]
    path = dc.save_trained(run.model, run.history, cfg, "small", 0, tmp_path)
    assert path == dc.checkpoint_path("small", 0, tmp_path) and path.exists()
    fresh = dc.build_title_vlm(run.split, seed=0, cnn_width=4, n_embd=8, device="cpu")
    history = dc.load_trained(fresh, cfg, "small", 0, tmp_path)
    assert history["loss"] == pytest.approx(run.history["loss"])
    for (k, a), b in zip(
        run.model.net.state_dict().items(), fresh.net.state_dict().values(), strict=True
    ):
        assert torch.equal(a, b), k
    frames = run.split.eval.frames[:3]
    assert np.array_equal(
        run.model.title_logprob(frames, [m.title for m in run.split.movies[:3]]),
        fresh.title_logprob(frames, [m.title for m in run.split.movies[:3]]),
    )
    with pytest.raises(ValueError, match="does not match"):
        dc.load_trained(fresh, {**cfg, "epochs": 2}, "small", 0, tmp_path)
    with pytest.raises(FileNotFoundError, match="icml25.disco.checkpoints"):
        dc.load_trained(fresh, cfg, "small", 1, tmp_path)


def test_committed_checkpoints_are_what_training_gives():
    """The committed models of the reported seeds fit the current settings and code: same
    config, same architecture, and the first epoch of a fresh training of seed 3 repeats the
    stored batch losses (a change to the world, the model or the training shows up here)."""
    cfg = dc.RUN_CONFIGS["small"]
    for seed in cfg["seeds"]:
        assert dc.checkpoint_path("small", seed).exists(), seed
    _, loaded = dc.prepare_runs("small", seeds=(3,), device="cpu", progress=False, pretrained=True)
    _, fresh = dc.prepare_runs("small", seeds=(3,), device="cpu", progress=False, epochs=1)
    n = len(fresh[0].history["loss"])
    assert loaded[0].history["loss"][:n] == pytest.approx(fresh[0].history["loss"], rel=1e-4)
