// The script of `moac explain --html` (embedded in the page by ExplainHtml.cpp; no network).
// Every linked element carries data-loc, the .moa locations it came from ("LINE:COL LINE:COL"); each line
// of the source pane carries data-line. Hovering an element highlights (.hl) every element that shares
// one of its locations; clicking a source line, or an element, selects (.sel) every element from the
// same source lines. Two page addresses drive it without a mouse (for the browser test and screenshots):
//   page.html#line=N    selects source line N on load;
//   page.html#selftest  clicks every source line in turn, then hovers over every token, and writes into
//                       #selftest the JSON {"click": {LINE: [C lines selected]}, "hover": {"LINE:COL":
//                       [C lines highlighted]}};
//   page.html#selftest,line=N  both, in that order.
// The page's state is written into <body data-status>: "ready", or "error: …" when a script error occurs.
(function () {
  'use strict';
  var body = document.body;
  window.addEventListener('error', function (event) {
    body.setAttribute('data-status', 'error: ' + event.message);
  });

  var byLoc = new Map();
  var byLine = new Map();
  function add(map, key, element) {
    if (!map.has(key)) map.set(key, []);
    map.get(key).push(element);
  }
  function locsOf(element) {
    return (element.getAttribute('data-loc') || '').split(' ').filter(function (s) { return s !== ''; });
  }
  function lineOf(loc) { return loc.split(':')[0]; }
  document.querySelectorAll('[data-loc]').forEach(function (element) {
    locsOf(element).forEach(function (loc) {
      add(byLoc, loc, element);
      add(byLine, lineOf(loc), element);
    });
  });
  document.querySelectorAll('[data-line]').forEach(function (element) {
    add(byLine, element.getAttribute('data-line'), element);
  });

  function related(map, keys) {
    var found = new Set();
    keys.forEach(function (key) {
      (map.get(key) || []).forEach(function (element) { found.add(element); });
    });
    return found;
  }
  function mark(cls, elements) {
    document.querySelectorAll('.' + cls).forEach(function (element) { element.classList.remove(cls); });
    elements.forEach(function (element) { element.classList.add(cls); });
  }

  // Scrolls each pane to its first selected element and opens the collapsed steps that hold one.
  function reveal() {
    document.querySelectorAll('.sel').forEach(function (element) {
      for (var d = element.parentElement.closest('details'); d; d = d.parentElement.closest('details'))
        d.open = true;
    });
    document.querySelectorAll('.pane-body').forEach(function (pane) {
      var first = pane.querySelector('.sel');
      if (first)
        pane.scrollTop = Math.max(0, first.offsetTop - pane.clientHeight / 3);
    });
  }

  var selected = '';
  function select(lines) {
    var key = lines.join(' ');
    selected = key === selected ? '' : key; // a second click on the same thing clears the selection
    mark('sel', selected === '' ? [] : related(byLine, lines));
    if (selected !== '') reveal();
  }

  document.addEventListener('mouseover', function (event) {
    var element = event.target.closest('[data-loc]');
    mark('hl', element ? related(byLoc, locsOf(element)) : []);
  });
  document.addEventListener('click', function (event) {
    var line = event.target.closest('[data-line]');
    if (line) {
      select([line.getAttribute('data-line')]);
      return;
    }
    var element = event.target.closest('[data-loc]');
    if (element)
      select(Array.from(new Set(locsOf(element).map(lineOf))));
  });

  function codeLines(cls) {
    var lines = [];
    document.querySelectorAll('#code .' + cls + '[data-cline]').forEach(function (c) {
      lines.push(Number(c.getAttribute('data-cline')));
    });
    return lines;
  }
  function selftest() {
    var result = {click: {}, hover: {}};
    document.querySelectorAll('#source [data-line]').forEach(function (line) {
      line.click();
      result.click[line.getAttribute('data-line')] = codeLines('sel');
      line.click();
    });
    document.querySelectorAll('#source .tok[data-loc]').forEach(function (token) {
      token.dispatchEvent(new MouseEvent('mouseover', {bubbles: true}));
      result.hover[token.getAttribute('data-loc')] = codeLines('hl');
    });
    mark('hl', []);
    document.getElementById('selftest').textContent = JSON.stringify(result);
  }

  window.location.hash.slice(1).split(',').forEach(function (part) {
    if (part === 'selftest') {
      selftest();
    } else if (part.indexOf('line=') === 0) {
      var line = document.querySelector('#source [data-line="' + part.slice(5) + '"]');
      if (line) line.click();
    }
  });
  if (!body.hasAttribute('data-status')) body.setAttribute('data-status', 'ready');
})();
