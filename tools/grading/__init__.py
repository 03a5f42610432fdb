"""The course's grader (tools/grade.py is its command line).

    model.py        tasks and test outcomes, and how a task's tests combine into one verdict
    doctest_xml.py  the verdict of one test program, read from doctest's own XML report
    runner.py       runs the graded tests of a configured build, one program per task test
    workspace.py    the trusted tree: the instructor's commit, configured once, the student's files laid over it
    submission.py   opens a submission (folder, git repository, .tar.gz or .zip) and picks the student's files
    shortcuts.py    finds a student file that uses a library implementing the task (CUB, Thrust, ...)
    reports.py      grade.json, JUnit XML, Gradescope results.json, the gradebook and the console table
"""
