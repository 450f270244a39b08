/*
 * page_minute.js: what t_page_minute.sh asks the browser about a copy of an
 * experiment page (the page itself has no such script): once the page has
 * loaded, where "What to fix first" and its lines end on the screen, the
 * lines' text and whether each link's target exists inside a <details>,
 * which <details> are open, and the key numbers' rows and figures. Written
 * as JSON into <pre id="page-check">, read back from --dump-dom.
 */
window.addEventListener('load', function () {
	var out = {inner: [window.innerWidth, window.innerHeight], scrollY: window.scrollY};
	var fix = document.getElementById('fix');
	out.fix = fix ? fix.getBoundingClientRect().bottom : null;
	out.none = fix && fix.querySelector('.fix-none') ? fix.querySelector('.fix-none').textContent : null;
	out.lines = [];
	if (fix) {
		fix.querySelectorAll('ol.fix-list li').forEach(function (li) {
			var a = li.querySelector('a'), id = a ? a.getAttribute('href').slice(1) : '';
			var t = id ? document.getElementById(id) : null;
			out.lines.push({text: li.textContent, bottom: li.getBoundingClientRect().bottom, target: id,
					found: !!t, inDetails: !!(t && t.closest('details'))});
		});
		var more = fix.querySelector('.more a');
		out.more = more ? {text: more.textContent, found: !!document.getElementById(more.getAttribute('href').slice(1))} : null;
	}
	out.details = document.querySelectorAll('details').length;
	out.open = [];
	document.querySelectorAll('details').forEach(function (d) {
		if (d.open)
			out.open.push(d.querySelector('p[id]') ? d.querySelector('p[id]').id : '?');
	});
	out.keyRows = [];
	document.querySelectorAll('#key table.keynums tbody tr').forEach(function (tr) {
		var cells = [];
		tr.querySelectorAll('td').forEach(function (td) { cells.push(td.textContent); });
		out.keyRows.push(cells);
	});
	out.keyFigures = [];
	document.querySelectorAll('#key figure img').forEach(function (img) {
		out.keyFigures.push(img.getAttribute('src'));
	});
	var pre = document.createElement('pre');
	pre.id = 'page-check';
	pre.textContent = JSON.stringify(out);
	document.body.appendChild(pre);
});
