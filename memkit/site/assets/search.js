// memkit site search: offline, over search-index.js written at build time.
// The stemmer mirrors memkit/site/search.py `stem` rule for rule (tests compare them);
// stop words and the CJK ranges come from the index file. Results are built with DOM
// methods and textContent only: atom text never becomes markup.
"use strict";
(function () {
  var INDEX = window.MEMKIT_SEARCH;

  function afterEd(base) {
    if (base.endsWith("at") || base.endsWith("bl") || base.endsWith("iz")) return base + "e";
    var last = base[base.length - 1];
    if (base.length >= 2 && last === base[base.length - 2] && "aeiouylsz".indexOf(last) < 0) {
      return base.slice(0, -1);
    }
    return base;
  }

  function stem(word) {
    if (word.length <= 3 || !/^[a-z]+$/.test(word)) return word;
    if (word.endsWith("sses")) word = word.slice(0, -2);
    else if (word.endsWith("ies")) word = word.slice(0, -2);
    else if (word.endsWith("s") && !(word.endsWith("ss") || word.endsWith("us") || word.endsWith("is"))) {
      word = word.slice(0, -1);
    }
    if (word.endsWith("eed")) {
      if (word.length > 4) word = word.slice(0, -1);
    } else {
      var suffixes = ["ingly", "edly", "ing", "ed"];
      for (var i = 0; i < suffixes.length; i++) {
        var base = word.slice(0, word.length - suffixes[i].length);
        if (word.endsWith(suffixes[i]) && /[aeiouy]/.test(base) && base.length >= 3) {
          word = afterEd(base);
          break;
        }
      }
    }
    if (word.endsWith("ly") && word.length > 5) word = word.slice(0, -2);
    if (word.endsWith("y") && word.length > 3 && "aeiou".indexOf(word[word.length - 2]) < 0) {
      word = word.slice(0, -1) + "i";
    }
    return word;
  }

  var stop = new Set(INDEX ? INDEX.stop : []);

  // [[term, isWord]] of a text, as memkit/site/search.py `terms` makes them.
  function terms(text) {
    text = text.normalize("NFKC").toLowerCase();
    var out = [];
    var cjk = new RegExp(INDEX.cjk, "g");
    (text.match(cjk) || []).forEach(function (run) {
      var chars = Array.from(run);
      if (chars.length === 1) out.push([run, false]);
      for (var i = 0; i + 1 < chars.length; i++) out.push([chars[i] + chars[i + 1], false]);
    });
    var rest = text.replace(cjk, " ");
    (rest.match(/[a-z0-9\u00e0-\u024f]+/g) || []).forEach(function (word) {
      if (!stop.has(word)) out.push([stem(word), true]);
    });
    return out;
  }

  function idf(found) {
    var total = INDEX.docs.length;
    return Math.log(1 + (total - found + 0.5) / (found + 0.5));
  }

  // The postings live in shards (assets/search/<shard>.js), loaded when a query needs them:
  // a term's shard is its first character when that is a-z or 0-9, else "x" and the
  // character's code modulo INDEX.spread in hex (memkit/site/search.py `shard_of`).
  var SHARDS = {};
  window.memkitShard = function (name, terms) { SHARDS[name] = terms; };

  function shardOf(term) {
    var first = term[0];
    if (/[a-z0-9]/.test(first)) return first;
    return "x" + (first.codePointAt(0) % INDEX.spread).toString(16);
  }

  function load(names) {
    return Promise.all(names.filter(function (n) { return !(n in SHARDS); }).map(function (n) {
      return new Promise(function (resolve) {
        if (INDEX.shards.indexOf(n) < 0) { SHARDS[n] = {}; resolve(); return; }
        var tag = document.createElement("script");
        tag.src = "assets/search/" + n + ".js";
        tag.onload = resolve;
        tag.onerror = function () { SHARDS[n] = {}; resolve(); };
        document.head.appendChild(tag);
      });
    }));
  }

  // A term's postings, [doc, weight, doc, weight, ...], from the index's compact string:
  // "gap.weight" pairs, the gap from the doc before in base 36, ".1" left out.
  function decode(text) {
    var out = [];
    var doc = 0;
    if (!text) return out;
    text.split(",").forEach(function (part) {
      var dot = part.indexOf(".");
      doc += parseInt(dot < 0 ? part : part.slice(0, dot), 36);
      out.push(doc, dot < 0 ? 1 : parseInt(part.slice(dot + 1), 10));
    });
    return out;
  }

  // doc number -> weight for one term; the last word of a query still being typed also
  // matches the terms it begins.
  function postings(term, prefix) {
    var rows = {};
    var shard = SHARDS[shardOf(term)] || {};
    var names = [term];
    if (prefix && term.length >= 3) {
      names = Object.keys(shard).filter(function (t) { return t.startsWith(term); });
    }
    names.forEach(function (name) {
      var flat = decode(shard[name]);
      var weight = idf(flat.length / 2);
      for (var i = 0; i < flat.length; i += 2) {
        var score = weight * flat[i + 1];
        if (!(flat[i] in rows) || rows[flat[i]] < score) rows[flat[i]] = score;
      }
    });
    return rows;
  }

  function unique(query) {
    var seen = {};
    return terms(query).filter(function (t) {
      if (seen[t[0]]) return false;
      seen[t[0]] = true;
      return true;
    });
  }

  // Every term must match; best first, then by id (as search.py `search`). The shards the
  // query needs must be loaded (`find` does it).
  function search(query, typing) {
    var wanted = unique(query);
    if (!wanted.length) return [];
    var scores = null;
    wanted.forEach(function (t, n) {
      var last = n === wanted.length - 1 && t[1] && typing;
      var rows = postings(t[0], last);
      var next = {};
      if (scores === null) {
        next = rows;
      } else {
        Object.keys(scores).forEach(function (d) { if (d in rows) next[d] = scores[d] + rows[d]; });
      }
      scores = next;
    });
    Object.keys(scores).forEach(function (d) {
      if (INDEX.retired.indexOf(INDEX.docs[d][4]) >= 0) scores[d] *= INDEX.retiredWeight;
    });
    return Object.keys(scores)
      .sort(function (a, b) {
        var by = scores[b] - scores[a];
        if (by !== 0) return by;
        var ia = INDEX.docs[a][0], ib = INDEX.docs[b][0];
        return ia < ib ? -1 : ia > ib ? 1 : 0;
      })
      .map(function (d) { return INDEX.docs[d]; });
  }

  function find(query, typing) {
    var names = unique(query).map(function (t) { return shardOf(t[0]); });
    return load(names).then(function () { return search(query, typing); });
  }

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  var latest = 0;
  var pending = Promise.resolve();

  function show(query, typing) {
    var list = document.getElementById("results");
    var count = document.getElementById("count");
    if (!list || !count) return Promise.resolve();
    var mine = ++latest;
    if (!query.trim()) {
      list.replaceChildren();
      count.textContent = "Type words or characters to search " + INDEX.docs.length + " atoms.";
      return Promise.resolve();
    }
    pending = find(query, typing).then(function (found) {
      if (mine !== latest) return;  // a newer query is on its way
      list.replaceChildren();
      count.textContent = found.length + (found.length === 1 ? " atom" : " atoms") + " found";
      found.slice(0, 100).forEach(function (doc) {
        var item = el("li", "result");
        var link = el("a", "", doc[1]);
        link.href = "atoms/" + doc[0] + ".html";
        item.appendChild(link);
        item.appendChild(el("span", "meta", " " + doc[0] + " · " + doc[2] + " · " + doc[3] +
          (doc[4] === "live" ? "" : " · " + doc[4])));
        item.appendChild(el("p", "snippet", doc[5]));
        list.appendChild(item);
      });
    });
    return pending;
  }

  // For tests and the curious: the stemmer, and a promise that the last search has shown.
  window.memkitSearch = {
    stem: stem,
    terms: terms,
    find: find,
    idle: function () { return pending; },
  };

  document.addEventListener("DOMContentLoaded", function () {
    var box = document.getElementById("q");
    if (!box || !INDEX) return;
    var query = new URLSearchParams(window.location.search).get("q") || "";
    box.value = query;
    show(query, false);
    box.addEventListener("input", function () { show(box.value, true); });
  });
})();
