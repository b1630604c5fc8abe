! Fortran under OpenMP (gfortran -fopenmp; the omp_lib module's routines are the
! underscored omp_*_ entries): parallel do schedule(runtime) with an exact reduction and
! every iteration once, explicit schedules with non-unit and negative steps, team queries,
! a critical section guarding a non-atomic counter, single, and recursive tasks counted
! with taskwait.
!
! The team size comes from OMP_NUM_THREADS, the runtime schedule from OMP_SCHEDULE. Stops
! with exit code 1 and a message on the first failure.
module checks
  implicit none
  integer(8) :: nchecks = 0
  integer, volatile :: counter
contains
  subroutine check(ok, msg)
    logical, intent(in) :: ok
    character(*), intent(in) :: msg
    nchecks = nchecks + 1
    if (.not. ok) then
      write (0, '(a)') 'loops-f90: FAIL: ' // msg
      error stop 1
    end if
  end subroutine

  ! Non-atomic increment with work between the read and the write.
  subroutine racy_inc()
    integer :: v, k
    integer, volatile :: w
    v = counter
    w = 0
    do k = 1, 30
      w = w + k
    end do
    counter = v + 1
  end subroutine

  ! Recursive fib with a task per call; ncalls counts the calls.
  recursive function fib(n, ncalls) result(r)
    integer, intent(in) :: n
    integer(8), intent(inout) :: ncalls
    integer(8) :: r, a, b
    !$omp atomic
    ncalls = ncalls + 1
    if (n < 2) then
      r = n
      return
    end if
    !$omp task shared(a, ncalls)
    a = fib(n - 1, ncalls)
    !$omp end task
    !$omp task shared(b, ncalls)
    b = fib(n - 2, ncalls)
    !$omp end task
    !$omp taskwait
    r = a + b
  end function

  recursive function fib_calls(n) result(r)
    integer, intent(in) :: n
    integer(8) :: r
    if (n < 2) then
      r = 1
    else
      r = 1 + fib_calls(n - 1) + fib_calls(n - 2)
    end if
  end function
end module

program loops
  use omp_lib
  use checks
  implicit none
  integer, parameter :: n = 100000, maxt = 64
  integer :: i, hits(n), seen(0:maxt - 1), nthreads, team, tid, stat, single_count
  integer(8) :: s, s2, ncalls, r
  character(len=32) :: env
  character(len=64) :: sched

  call get_environment_variable('OMP_NUM_THREADS', env, status=stat)
  call check(stat == 0, 'set OMP_NUM_THREADS')
  read (env, *) nthreads
  call get_environment_variable('OMP_SCHEDULE', sched, status=stat)
  if (stat /= 0) sched = '(unset)'
  call check(omp_get_max_threads() == nthreads, 'omp_get_max_threads /= OMP_NUM_THREADS')
  call check(.not. omp_in_parallel() .and. omp_get_thread_num() == 0 .and. &
             omp_get_num_threads() == 1, 'team queries outside a region')

  ! parallel do schedule(runtime): exact integer sum, every iteration once.
  s = 0
  hits = 0
  !$omp parallel do schedule(runtime) reduction(+:s)
  do i = 1, n
    s = s + int(i, 8) * 3
    !$omp atomic
    hits(i) = hits(i) + 1
  end do
  !$omp end parallel do
  call check(s == 3_8 * n * (n + 1) / 2, 'schedule(runtime) reduction sum')
  call check(all(hits == 1), 'schedule(runtime): an iteration did not run exactly once')

  ! Explicit schedules, negative and non-unit steps (index k = (n - i) / 7 + 1).
  hits = 0
  s2 = 0
  !$omp parallel
  !$omp do schedule(dynamic, 3) reduction(+:s2)
  do i = n, 1, -7
    s2 = s2 + i
    !$omp atomic
    hits((n - i) / 7 + 1) = hits((n - i) / 7 + 1) + 1
  end do
  !$omp end do
  !$omp do schedule(guided, 5)
  do i = 1, n, 2
    !$omp atomic
    hits(i) = hits(i) + 10
  end do
  !$omp end do nowait
  !$omp do schedule(static, 7)
  do i = 2, n, 2
    !$omp atomic
    hits(i) = hits(i) + 100
  end do
  !$omp end do
  !$omp end parallel
  s = 0
  do i = n, 1, -7
    s = s + i
  end do
  call check(s2 == s, 'schedule(dynamic,3) step -7 reduction')
  do i = 1, n
    s = merge(10, 100, mod(i, 2) == 1)
    if (7 * (i - 1) <= n - 1) s = s + 1
    if (hits(i) /= s) then
      write (0, '(a,i0,a,i0,a,i0)') 'loops-f90: iteration slot ', i, ' has ', hits(i), ' want ', s
      call check(.false., 'explicit schedules: an iteration did not run exactly once')
    end if
  end do

  ! Team queries: distinct thread numbers 0..team-1, team size = OMP_NUM_THREADS.
  seen = 0
  team = -1
  !$omp parallel private(tid)
  tid = omp_get_thread_num()
  !$omp atomic
  seen(tid) = seen(tid) + 1
  !$omp single
  team = omp_get_num_threads()
  !$omp end single
  if ((omp_get_num_threads() /= team) .or. (omp_in_parallel() .neqv. (team > 1))) then
    call check(.false., 'omp_get_num_threads / omp_in_parallel differ between threads')
  end if
  !$omp end parallel
  call check(team == nthreads, 'team size /= OMP_NUM_THREADS')
  call check(all(seen(0:team - 1) == 1) .and. all(seen(team:) == 0), &
             'thread numbers are not distinct in 0..n-1')

  ! critical: a non-atomic counter stays exact; single runs once per encounter.
  counter = 0
  single_count = 0
  !$omp parallel private(i)
  do i = 1, 2000
    !$omp critical
    call racy_inc()
    !$omp end critical
  end do
  do i = 1, 100
    !$omp single
    single_count = single_count + 1
    !$omp end single
  end do
  !$omp end parallel
  call check(counter == 2000 * nthreads, 'critical: lost updates')
  call check(single_count == 100, 'single ran other than once per encounter')

  ! Tasks: recursive fib, every call counted.
  ncalls = 0
  !$omp parallel
  !$omp single
  r = fib(20, ncalls)
  !$omp end single
  !$omp end parallel
  call check(r == 6765, 'fib(20) with tasks')
  call check(ncalls == fib_calls(20), 'fib tasks: not every call ran exactly once')

  write (*, '(a,i0,a,i0,a,a)') 'loops-f90: OK: ', nchecks, ' checks, ', nthreads, &
    ' threads, OMP_SCHEDULE=', trim(sched)
end program
